#include "engine/solve/chunk_feeder.h"

#include "engine/model/stopwatch.h"

#include <spdlog/spdlog.h>

#include <chrono>

namespace mdpvi {

ChunkFeeder::ChunkFeeder(const MaybeSystem& system, const std::vector<Chunk>& plan, std::vector<gpu::DeviceSolver*> devices,
                         gpu::GroupShape shape, bool cuts, bool rows_b, std::function<bool(const Chunk&)> on_device)
    : system_(system),
      plan_(plan),
      devices_(std::move(devices)),
      turns_(plan.size(), 0),
      shape_(shape),
      cuts_(cuts),
      rows_b_(rows_b),
      on_device_(std::move(on_device)) {
  int turn = 0;
  for (std::size_t i = 0; i < plan_.size(); ++i) {
    if (!on_device_(plan_[i])) continue;
    turns_[i] = turn;
    turn = (turn + 1) % static_cast<int>(devices_.size());
  }
}

ChunkFeeder::~ChunkFeeder() {
  if (preparing_.valid()) preparing_.wait();
  if (finding_rows_.valid()) finding_rows_.wait();
  release(current_);
  release(ahead_);
}

void ChunkFeeder::start() {
  const std::size_t first = next_on_device(0);
  if (first == plan_.size()) return;
  try {
    ahead_ = upload(first, prepared(first));
  } catch (const gpu::DeviceError& error) {
    spdlog::warn("{}; the first chunk will be uploaded when it is solved", error.what());
  }
  prepare_after(first);
  find_reading_rows_after(first);
}

DeviceChunkJob ChunkFeeder::take(std::size_t index) {
  release(current_);
  if (ahead_.index == index) {
    current_ = std::move(ahead_);
    ahead_ = {};
  } else {
    release(ahead_);
    const auto start = std::chrono::steady_clock::now();
    std::unique_ptr<PreparedChunk> chunk = prepared(index);
    const double waited_s = seconds_since(start);
    current_ = upload(index, std::move(chunk));
    spdlog::debug("solve: chunk {} waited {:.3f} s for its copy, {} in {:.3f} s", index, waited_s,
                  current_.cut ? "its rows' upload and cut started" : "uploaded", seconds_since(start) - waited_s);
  }
  if (devices_.size() > 1) spdlog::debug("solve: chunk {} on GPU {}", index, current_.turn);
  if (current_.cut && rows_b_ && finding_rows_.valid() && finding_rows_index_ == index) {
    current_.reading_rows = std::move(finding_rows_);
  }
  send_ahead(index);
  const Chunk& chunk = plan_[index];
  const PreparedChunk* prepared = current_.prepared.get();
  const bool cut = current_.cut;
  DeviceChunkJob job{*devices_[current_.turn], current_.ticket, {chunk.first_state, chunk.end_state}, chunk.first_scc,
                     chunk.end_scc, {}};
  job.row_constants = [this, &chunk, prepared, cut](const double* final, PodVector<double>& storage) {
    if (cut) {
      row_constants_from_rows(system_, chunk, final, storage);
    } else if (prepared) {
      prepared->row_constants(system_, chunk, final, storage);
    } else {
      return system_.row_constants.data() + system_.row_group_starts[chunk.first_state];
    }
    return static_cast<const double*>(storage.data());
  };
  if (cut && rows_b_) {
    // The next chunk's rows are looked for once these corrections are made: both
    // are passes on all cores.
    job.corrections = [this, &chunk, index](const double* lower, const double* upper) {
      RowCorrections made = current_.reading_rows.valid()
                                ? corrections_of_rows(system_, chunk, current_.reading_rows.get(), lower, upper)
                                : corrections_from_rows(system_, chunk, lower, upper);
      find_reading_rows_after(index);
      return made;
    };
  }
  return job;
}

unsigned ChunkFeeder::value_bytes() const {
  const CompactValues& values = current_.prepared ? current_.prepared->values : system_.values;  // a cut's: the system's
  return values.index_bytes() != 0 ? values.index_bytes() : sizeof(double);
}

void ChunkFeeder::drop() {
  release(current_);
  release(ahead_);
}

// Any chunk but the first (whose rows are a prefix of the system's, uploaded as they
// are), where the raw rows and the cut together fit the chunk's footprint (they are
// on the device before its vectors).
bool ChunkFeeder::cut_on_device(std::size_t index) const {
  return cuts_ && index > 0 && !system_.view && cut_peak_bytes(system_, plan_[index]) <= plan_[index].footprint_bytes;
}

// Chunk 0 (but a view's, which has no rows of its own) and a cut need no copy; another
// is taken from its preparation under way, else made now.
std::unique_ptr<PreparedChunk> ChunkFeeder::prepared(std::size_t index) {
  if ((index == 0 && !system_.view) || cut_on_device(index)) return nullptr;
  if (preparing_.valid() && preparing_index_ == index) return preparing_.get();
  if (preparing_.valid()) preparing_.wait();  // another one's: not needed after all
  return std::make_unique<PreparedChunk>(prepare_chunk(system_, plan_[index]));
}

ChunkFeeder::Resident ChunkFeeder::upload(std::size_t index, std::unique_ptr<PreparedChunk> prepared) {
  Resident r;
  r.index = index;
  r.turn = turns_[index];
  r.prepared = std::move(prepared);
  r.cut = !r.prepared && index > 0;
  gpu::DeviceSolver& device = *devices_[r.turn];
  if (r.cut) {
    gpu::SystemRows rows = system_rows(system_, plan_[index]);
    if (!rows_b_) rows.row_constants = nullptr;
    r.ticket = device.upload_rows(rows, shape_);
  } else {
    r.ticket = device.upload(r.prepared ? r.prepared->view() : prefix_view(system_, plan_[0]), shape_);
  }
  return r;
}

std::size_t ChunkFeeder::next_on_device(std::size_t first) const {
  while (first < plan_.size() && !on_device_(plan_[first])) ++first;
  return first;
}

// The next chunk for a device after index: where chunks take turns and the device
// cuts it, uploaded now to its own device (not index's: the turns go round) while
// index is solved; else copied on the host meanwhile (prepare_after), or, cut on the
// one device, uploaded once index has left it.
void ChunkFeeder::send_ahead(std::size_t index) {
  const std::size_t next = next_on_device(index + 1);
  if (next == plan_.size()) return;
  if (devices_.size() > 1 && cut_on_device(next) && turns_[next] != current_.turn) {
    try {
      ahead_ = upload(next, nullptr);
      spdlog::debug("solve: chunk {} on its way to GPU {} beside chunk {}", next, ahead_.turn, index);
    } catch (const gpu::DeviceError& error) {
      spdlog::warn("{}; chunk {} will be uploaded when it is solved", error.what(), next);
    }
    return;
  }
  prepare_after(index);
}

// The next chunk for a device after index, prepared on a thread of its own (where the
// device does not cut it).
void ChunkFeeder::prepare_after(std::size_t index) {
  const std::size_t next = next_on_device(index + 1);
  if (next == plan_.size() || cut_on_device(next) || (preparing_.valid() && preparing_index_ == next)) return;
  if (preparing_.valid()) preparing_.wait();
  preparing_index_ = next;
  preparing_ = std::async(std::launch::async, [this, next] {
    const auto start = std::chrono::steady_clock::now();
    auto prepared = std::make_unique<PreparedChunk>(prepare_chunk(system_, plan_[next]));
    spdlog::debug("solve: chunk {} copied on the host in {:.3f} s (beside the device)", next, seconds_since(start));
    return prepared;
  });
}

// The rows of the next chunk cut on a device after index that read earlier chunks,
// found on a thread of their own while index is solved (from the first chunk's
// start, or once index's own corrections are made): they depend on the rows
// alone, and finding them is a pass over all of the chunk's rows, where its b's
// corrections then read only those rows (leader9's chunks: 11-17 million of 160
// million; bench/NOTES.md, session 22).
void ChunkFeeder::find_reading_rows_after(std::size_t index) {
  const std::size_t next = next_on_device(index + 1);
  if (!rows_b_ || next == plan_.size() || !cut_on_device(next)) return;
  if (finding_rows_.valid() && finding_rows_index_ == next) return;  // on its way
  if (finding_rows_.valid()) finding_rows_.wait();  // another one's, not taken
  finding_rows_index_ = next;
  finding_rows_ = std::async(std::launch::async, [this, next] {
    const auto start = std::chrono::steady_clock::now();
    PodVector<std::uint64_t> rows = rows_reading_earlier(system_, plan_[next]);
    spdlog::debug("solve: chunk {}'s {} rows that read earlier chunks found in {:.3f} s (beside the device)", next,
                  rows.size(), seconds_since(start));
    return rows;
  });
}

void ChunkFeeder::release(Resident& r) {
  if (r.ticket >= 0) devices_[r.turn]->release(r.ticket);
  r = {};
}

}  // namespace mdpvi
