#pragma once
// Puts a plan's chunks on the devices in turn, one chunk a device at a time: the
// first from the system's own arrays, the others cut on the device from the system's
// rows as they lie (gpu::DeviceSolver::upload_rows), or, where the cut would not fit
// the chunk's footprint, prepared as systems of their own on the host
// (prepared_chunk.h) while the chunk before them is solved. Internal to the chunk
// driver (chunk_driver.cpp).
//
// With several devices the chunks take turns over them: while one device solves a
// chunk, the next goes up to the next device, so its copy never waits for a solve (a
// model past one device's memory, bench/NOTES.md, issues 39 and 45). One chunk reads
// the final values of the chunks before it through its b, made on the host from the
// iterates, so the solves themselves stay one after another.
#include "engine/solve/chunk_driver.h"
#include "engine/solve/method_policy.h"
#include "engine/solve/prepared_chunk.h"

#include <cstddef>
#include <functional>
#include <future>
#include <memory>
#include <vector>

namespace mdpvi {

class ChunkFeeder {
 public:
  // devices: the run's device first, then those chunks also take turns on (none
  // beside it: one device). on_device(chunk): whether the chunk goes to a device (the
  // others are not uploaded). cuts: whether chunks may be cut on the device
  // (DeviceOptions::chunks_cut_on_device). rows_b: whether a cut chunk's rows' b goes
  // up with them, for the method to correct there (MethodPolicy::corrects_b_on_device).
  ChunkFeeder(const MaybeSystem& system, const std::vector<Chunk>& plan, std::vector<gpu::DeviceSolver*> devices,
              gpu::GroupShape shape, bool cuts, bool rows_b, std::function<bool(const Chunk&)> on_device);
  ~ChunkFeeder();
  ChunkFeeder(const ChunkFeeder&) = delete;
  ChunkFeeder& operator=(const ChunkFeeder&) = delete;

  // Starts uploading the first chunk that goes to a device, before take asks for it:
  // the upload then runs while the iterates are made.
  void start();
  // plan[index] on its device, as a job for a method; starts the next chunk for a
  // device on its way (uploaded to the next device, or copied on the host). Valid
  // until the next call. Throws gpu::DeviceError.
  DeviceChunkJob take(std::size_t index);
  // Of the chunk take() last gave: whether it was cut on the device; its device's
  // place in the list; what an entry's value takes there (8 plain, else its index's bytes).
  bool cut() const { return current_.cut; }
  int device_number() const { return current_.turn; }
  unsigned value_bytes() const;
  // After a failure: nothing stays on the devices.
  void drop();

 private:
  struct Resident {
    std::size_t index = static_cast<std::size_t>(-1);
    int turn = 0;  // devices_[turn]
    int ticket = -1;
    std::unique_ptr<PreparedChunk> prepared;  // null for chunk 0 (the system's arrays) and for a cut
    bool cut = false;                         // cut on the device from the system's rows
    // A cut chunk's rows that read earlier chunks (rows_reading_earlier), where their
    // search was started beside the chunk before; else none (found when b is made).
    std::future<PodVector<std::uint64_t>> reading_rows;
  };

  bool cut_on_device(std::size_t index) const;
  std::unique_ptr<PreparedChunk> prepared(std::size_t index);
  Resident upload(std::size_t index, std::unique_ptr<PreparedChunk> prepared);
  std::size_t next_on_device(std::size_t first) const;
  void send_ahead(std::size_t index);
  void prepare_after(std::size_t index);
  void find_reading_rows_after(std::size_t index);
  void release(Resident& r);

  const MaybeSystem& system_;
  const std::vector<Chunk>& plan_;
  std::vector<gpu::DeviceSolver*> devices_;
  std::vector<int> turns_;  // per chunk of the plan, the device it goes to
  gpu::GroupShape shape_;
  bool cuts_, rows_b_;
  std::function<bool(const Chunk&)> on_device_;
  Resident current_, ahead_;  // ahead_: the next chunk, uploaded before take asks for it
  std::future<std::unique_ptr<PreparedChunk>> preparing_;
  std::size_t preparing_index_ = 0;
  std::future<PodVector<std::uint64_t>> finding_rows_;  // of the next cut chunk, beside the device
  std::size_t finding_rows_index_ = 0;
};

}  // namespace mdpvi
