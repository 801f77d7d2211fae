#pragma once
// A memo of some function of a packed state that reads only the bits of a mask (a
// module's commands, a label): states equal on those bits share one value, and
// models have millions of states but a few hundred such local valuations. Per
// thread; bounded: past kMostEntries values it starts afresh.
//
// A mask of at most kMostDirectBits bits (a module of the consensus or leader
// protocols reads a dozen or so) indexes a table directly with the masked bits moved together: a few shifts
// instead of a hash, a probe and a key comparison, for every module of every state.
#include "engine/explore/hash_words.h"

#include <sys/mman.h>

#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace mdpvi {

// A table of zeros that the kernel commits a page at a time, as entries are first
// written. A direct table has an entry for every valuation of its mask's bits, but
// a model reaches a few hundred of them: filled by a vector, each module's table
// would be committed whole in every thread. Small tables come from the heap: a
// mapping costs a page at least, which a model with very many one-variable labels
// multiplies.
class LazyZeros {
 public:
  LazyZeros() = default;
  // No entries: an empty table (mmap refuses a mapping of no bytes, and a memo with a
  // wide mask, which has no direct table, is copied through here).
  explicit LazyZeros(std::size_t count) {
    if (count == 0) return;
    if (!mapped(count)) {
      data_ = Entries(new std::uint32_t[count](), Release{count});
      return;
    }
    void* p = mmap(nullptr, count * sizeof(std::uint32_t), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    data_ = Entries(static_cast<std::uint32_t*>(p), Release{count});
  }
  // A moved-from table is empty: the pointer moves, and the count goes with it.
  LazyZeros(LazyZeros&&) noexcept = default;
  LazyZeros& operator=(LazyZeros&&) noexcept = default;
  LazyZeros(const LazyZeros& other) : LazyZeros(other.size()) {
    for (std::size_t i = 0; i < size(); ++i) {
      if (other.data_[i] != 0) data_[i] = other.data_[i];
    }
  }
  LazyZeros& operator=(const LazyZeros& other) { return *this = LazyZeros(other); }

  bool empty() const { return data_ == nullptr; }
  std::uint32_t& operator[](std::size_t i) { return data_[i]; }

 private:
  static constexpr std::size_t kLeastMappedBytes = std::size_t{64} << 10;
  static bool mapped(std::size_t count) { return count * sizeof(std::uint32_t) >= kLeastMappedBytes; }
  struct Release {
    std::size_t count;
    void operator()(std::uint32_t* p) const {
      if (mapped(count)) munmap(p, count * sizeof(std::uint32_t));
      else delete[] p;
    }
  };
  using Entries = std::unique_ptr<std::uint32_t[], Release>;
  std::size_t size() const { return empty() ? 0 : data_.get_deleter().count; }
  Entries data_{nullptr, Release{0}};
};

template <typename Value>
class MaskedMemo {
 public:
  static constexpr std::uint32_t kMostEntries = 1u << 16;
  static constexpr std::uint32_t kMostDirectBits = 16;

  explicit MaskedMemo(std::vector<std::uint64_t> mask) : mask_(std::move(mask)), key_(mask_.size()) {
    std::uint32_t bits = 0;
    for (std::uint32_t w = 0; w < mask_.size(); ++w) {
      for (std::uint64_t rest = mask_[w]; rest != 0;) {  // each run of set bits is a field
        const int shift = __builtin_ctzll(rest);
        const std::uint64_t from_shift = rest >> shift;
        const int width = ~from_shift == 0 ? 64 : __builtin_ctzll(~from_shift);
        const std::uint64_t run = width == 64 ? ~0ull : ((std::uint64_t{1} << width) - 1);
        fields_.push_back({w, static_cast<std::uint32_t>(shift), run, bits});
        bits += static_cast<std::uint32_t>(width);
        rest &= ~(run << shift);
      }
    }
    if (bits <= kMostDirectBits) direct_ = LazyZeros(std::size_t{1} << bits);
    else rehash(256);  // the hashed way, for wide masks only
  }

  // Whether the next miss starts afresh: a caller whose values index storage of its
  // own clears that storage in compute() when this holds.
  bool full() const { return values_.size() == kMostEntries; }

  // The value for state; on a miss compute() gives it.
  template <typename Compute>
  Value find(const std::uint64_t* state, const Compute& compute);

  std::uint64_t lookups() const { return lookups_; }
  std::uint64_t misses() const { return misses_; }

 private:
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;

  bool key_is(std::uint32_t e) const {
    const auto words = static_cast<std::uint32_t>(key_.size());
    return same_words(&keys_[std::size_t{e} * words], key_.data(), words);
  }
  std::size_t home(const std::uint64_t* key) const {
    return hash_words(key, static_cast<std::uint32_t>(key_.size())) & (slots_.size() - 1);
  }
  void rehash(std::size_t slot_count) {
    slots_.assign(slot_count, kEmpty);
    for (std::uint32_t e = 0; e < values_.size(); ++e) place(e, home(&keys_[e * key_.size()]));
  }
  void place(std::uint32_t e, std::size_t slot) {
    while (slots_[slot] != kEmpty) slot = (slot + 1) & (slots_.size() - 1);
    slots_[slot] = e;
  }

  // The masked bits moved together: the index into direct_.
  std::uint32_t compact(const std::uint64_t* state) const {
    std::uint64_t index = 0;
    for (const Field& f : fields_) index |= ((state[f.word] >> f.shift) & f.run) << f.offset;
    return static_cast<std::uint32_t>(index);
  }

  struct Field {
    std::uint32_t word, shift;
    std::uint64_t run;       // the field's bits, shifted down
    std::uint32_t offset;    // where they go in compact()
  };
  std::vector<Field> fields_;
  LazyZeros direct_;  // compact(state) -> 1 + value index, or 0; empty if the mask is wide

  std::vector<std::uint64_t> mask_;
  std::vector<std::uint64_t> key_;  // the state last looked up, masked
  std::uint32_t last_ = kEmpty;     // its entry
  std::vector<Value> values_;
  std::vector<std::uint64_t> keys_;  // per value, its masked state
  std::vector<std::uint32_t> slots_;  // value index or kEmpty; linear probing, at most half full
  std::uint64_t lookups_ = 0, misses_ = 0;
};

template <typename Value>
template <typename Compute>
Value MaskedMemo<Value>::find(const std::uint64_t* state, const Compute& compute) {
  ++lookups_;
  if (!direct_.empty()) {
    std::uint32_t& entry = direct_[compact(state)];
    if (entry != 0) return values_[entry - 1];
    ++misses_;
    Value value = compute();  // never full() here: the table has room for every key
    entry = static_cast<std::uint32_t>(values_.size()) + 1;
    values_.push_back(value);
    return value;
  }
  bool same_as_last = last_ != kEmpty;
  for (std::size_t w = 0; w < key_.size(); ++w) {
    const std::uint64_t masked = state[w] & mask_[w];
    same_as_last &= key_[w] == masked;
    key_[w] = masked;
  }
  if (same_as_last) return values_[last_];  // states in a row often agree on the mask
  std::size_t slot = home(key_.data());
  for (; slots_[slot] != kEmpty; slot = (slot + 1) & (slots_.size() - 1)) {
    if (key_is(slots_[slot])) return values_[last_ = slots_[slot]];
  }
  ++misses_;
  Value value = compute();
  if (full()) {
    values_.clear();
    keys_.clear();
    std::fill(slots_.begin(), slots_.end(), kEmpty);
  }
  if (2 * (values_.size() + 1) > slots_.size()) rehash(2 * slots_.size());
  last_ = static_cast<std::uint32_t>(values_.size());
  values_.push_back(value);
  keys_.insert(keys_.end(), key_.begin(), key_.end());
  place(last_, home(key_.data()));
  return value;
}

}  // namespace mdpvi
