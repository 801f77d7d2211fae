#pragma once
// What the LTL product's builder (engine/check/ltl_product.cpp) writes each entry from,
// and the product's probabilities in the model's value form. Internal to engine/check/.
#include "engine/model/compact_values.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace mdpvi::product_detail {

// Equal as a table of distinct values tells them (engine/model/compact_values.h).
inline bool same_value(double a, double b) { return !CompactValues::table_order(a, b) && !CompactValues::table_order(b, a); }

// values sorted in the table's order, each once.
inline void make_distinct(std::vector<double>& values) {
  std::sort(values.begin(), values.end(), CompactValues::table_order);
  values.erase(std::unique(values.begin(), values.end(), same_value), values.end());
}

// value into values, which are made distinct whenever their count reaches a power of
// two past a few thousand.
inline void add_distinct(std::vector<double>& values, double value) {
  values.push_back(value);
  if (values.size() >= 4096 && (values.size() & (values.size() - 1)) == 0) make_distinct(values);
}

// One entry of a product row: its column, its probability, and the model entry it
// copies (kNoModelEntry for a 1 of a jump, an edge or the sink, and for the sum of
// entries that meet in the sink).
struct Entry {
  static constexpr std::uint64_t kNoModelEntry = ~std::uint64_t{0};
  std::uint32_t column;
  double value;
  std::uint64_t model_entry;
  // Equal columns by value: the sums come out as they did from sorted pairs.
  bool operator<(const Entry& other) const {
    return column < other.column || (column == other.column && value < other.value);
  }
};
using Entries = std::vector<Entry>;

// The product's probabilities in the model's form: where the model's are indices, each
// entry's index is its model entry's, mapped into the product's table (the model's
// values, 1, and the sums of entries that meet in the sink), so that no plain array of
// 8 bytes an entry is written and then indexed; else, or past CompactValues::kMostDistinct
// values, plain. Written by entry on any thread (each entry once), then finished.
class ProductValues {
 public:
  ProductValues(const CompactValues& model, std::vector<double> sums, std::size_t entries) : model_(model) {
    if (model.index_bytes() != 0) index_like(model.table(), std::move(sums));
    if (bytes_ == 0) plain_.resize(entries);
    if (bytes_ == 1) narrow_.resize(entries);
    if (bytes_ == 2) wide_.resize(entries);
  }

  void write(std::size_t at, const Entry& entry) {
    if (bytes_ == 0) {
      plain_[at] = entry.value;
      return;
    }
    const std::uint16_t index = entry.model_entry == Entry::kNoModelEntry ? index_of(entry.value)
                                                                          : from_model_[model_index(entry.model_entry)];
    if (bytes_ == 1) {
      narrow_[at] = static_cast<std::uint8_t>(index);
    } else {
      wide_[at] = index;
    }
  }

  CompactValues finish() && {
    if (bytes_ == 0) return CompactValues(std::move(plain_));
    return CompactValues::indexed(std::move(narrow_), std::move(wide_), std::move(table_));
  }

 private:
  void index_like(const std::vector<double>& model_table, std::vector<double> table) {
    table.insert(table.end(), model_table.begin(), model_table.end());
    table.push_back(1.0);
    make_distinct(table);
    if (table.size() > CompactValues::kMostDistinct) return;
    table_ = std::move(table);
    bytes_ = table_.size() <= 256 ? 1 : 2;
    from_model_.resize(model_table.size());
    for (std::size_t i = 0; i < model_table.size(); ++i) from_model_[i] = index_of(model_table[i]);
  }

  // Every value written is in the table: the counting pass met each sum that the
  // writing pass makes.
  std::uint16_t index_of(double value) const {
    const auto at = std::lower_bound(table_.begin(), table_.end(), value, CompactValues::table_order);
    if (at == table_.end() || !same_value(*at, value)) throw std::logic_error("LTL product: a value missing from its table");
    return static_cast<std::uint16_t>(at - table_.begin());
  }

  std::size_t model_index(std::uint64_t k) const {
    const std::uint8_t* indices = model_.index_data();
    return model_.index_bytes() == 1 ? indices[k] : reinterpret_cast<const std::uint16_t*>(indices)[k];
  }

  const CompactValues& model_;
  unsigned bytes_ = 0;
  std::vector<double> table_;
  std::vector<std::uint16_t> from_model_;  // per model table index: the product's
  PodVector<double> plain_;
  PodVector<std::uint8_t> narrow_;
  PodVector<std::uint16_t> wide_;
};

}  // namespace mdpvi::product_detail
