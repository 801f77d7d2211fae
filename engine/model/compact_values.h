#pragma once
// Per-entry numbers (a model's probabilities) stored plain, or as 1- or 2-byte
// indices into a table of the distinct values, where there are at most 65,536 of
// them: the compressed rows of Wijs and Bošnački's GPU-PRISM. Benchmark models have
// a handful of distinct probabilities, so 8 bytes an entry become 1 or 2. The table
// holds the exact doubles (values are told apart by their bits), so every reader
// sees what the plain array held, and sweeps stay bit-identical.
//
// Written plain (the builder and the readers fill it as a PodVector), then
// compress()ed once; writing after that throws std::logic_error.
#include "engine/model/pod_vector.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

namespace mdpvi {

class CompactValues {
 public:
  // At most this many distinct values are indexed; more stay plain.
  static constexpr std::size_t kMostDistinct = 65536;

  CompactValues() = default;
  CompactValues(std::initializer_list<double> values) : plain_(values) {}
  explicit CompactValues(PodVector<double> plain) : plain_(std::move(plain)) {}
  // Plain values in place of whatever was held.
  CompactValues& operator=(PodVector<double> plain) { return *this = CompactValues(std::move(plain)); }

  std::size_t size() const { return index_bytes_ == 0 ? plain_.size() : index_bytes_ == 1 ? narrow_.size() : wide_.size(); }
  bool empty() const { return size() == 0; }
  // Indexed values from their parts: index_bytes 1 (narrow) or 2 (wide), the other
  // array empty; every index within table.
  static CompactValues indexed(PodVector<std::uint8_t> narrow, PodVector<std::uint16_t> wide, std::vector<double> table);

  double operator[](std::size_t i) const {
    switch (index_bytes_) {
      case 0: return plain_[i];
      case 1: return table_[narrow_[i]];
      default: return table_[wide_[i]];
    }
  }

  // 0 while plain, else the bytes of an index.
  unsigned index_bytes() const { return index_bytes_; }
  // The plain array (null once compressed) and the index form (empty while plain).
  const double* plain_data() const { return index_bytes_ == 0 ? plain_.data() : nullptr; }
  const std::uint8_t* index_data() const {
    return index_bytes_ == 2 ? reinterpret_cast<const std::uint8_t*>(wide_.data()) : narrow_.data();
  }
  const std::vector<double>& table() const { return table_; }
  // What the storage takes (for the memory reports).
  std::size_t bytes() const {
    return plain_.size() * sizeof(double) + narrow_.size() + wide_.size() * 2 + table_.size() * sizeof(double);
  }

  // The plain array, to write. Throws std::logic_error once compressed.
  PodVector<double>& plain();
  void push_back(double value) { plain().push_back(value); }

  // Indexes the values where at most kMostDistinct are distinct, on all cores, and
  // frees the plain array; returns whether it did (else the array stays plain).
  // The table is sorted, so equal arrays compress alike.
  bool compress();
  // The values as a plain array (a copy).
  PodVector<double> expanded() const;

  // f(read) with read(i) the value of entry i, read the fastest way for the form:
  // for loops over many entries, where a switch per entry would cost.
  template <typename F>
  decltype(auto) visit(F&& f) const {
    switch (index_bytes_) {
      case 0: return f([p = plain_.data()](std::size_t i) { return p[i]; });
      case 1: return f([t = table_.data(), x = narrow_.data()](std::size_t i) { return t[x[i]]; });
      default: return f([t = table_.data(), x = wide_.data()](std::size_t i) { return t[x[i]]; });
    }
  }

  // The table's order: by value, equal values (0.0 and -0.0) by their bits.
  static bool table_order(double a, double b);

  // Value by value, bit for bit (so a compressed array equals its plain original).
  friend bool operator==(const CompactValues& a, const CompactValues& b);

 private:
  PodVector<double> plain_;
  PodVector<std::uint8_t> narrow_;   // index_bytes_ 1
  PodVector<std::uint16_t> wide_;    // index_bytes_ 2
  std::vector<double> table_;
  unsigned index_bytes_ = 0;
};

// A CompactValues made of some entries of another: in its form (keep_form: an indexed
// source's entries copy their indices, the copy taking its table, and no plain array
// is made), or plain (its doubles). Written by entry, on any thread (each entry once),
// then finished.
class CompactValuesCopy {
 public:
  CompactValuesCopy(const CompactValues& source, std::size_t entries, bool keep_form = true);
  // Entry `to` of the copy takes the source's entry `from`.
  void copy(std::size_t to, std::size_t from) {
    switch (bytes_) {
      case 0: plain_[to] = source_[from]; break;
      case 1: narrow_[to] = source_.index_data()[from]; break;
      default: wide_[to] = reinterpret_cast<const std::uint16_t*>(source_.index_data())[from];
    }
  }
  CompactValues finish() &&;

 private:
  const CompactValues& source_;
  unsigned bytes_;
  PodVector<double> plain_;
  PodVector<std::uint8_t> narrow_;
  PodVector<std::uint16_t> wide_;
};

}  // namespace mdpvi
