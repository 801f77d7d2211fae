#include "engine/model/compact_values.h"

#include "engine/model/compact_values_builder.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <bit>
#include <optional>
#include <stdexcept>

namespace mdpvi {

namespace {

std::uint64_t bits_of(double value) { return std::bit_cast<std::uint64_t>(value); }

}  // namespace

bool CompactValues::table_order(double a, double b) { return a < b || (!(b < a) && bits_of(a) < bits_of(b)); }

PodVector<double>& CompactValues::plain() {
  if (index_bytes_ != 0) throw std::logic_error("CompactValues: written after compress()");
  return plain_;
}

bool CompactValues::compress() {
  if (index_bytes_ != 0) return true;
  std::optional<CompactValues> indexed = CompactValuesBuilder::indexed(plain_.data(), plain_.size());
  if (!indexed) return false;
  *this = std::move(*indexed);
  return true;
}

CompactValues CompactValues::indexed(PodVector<std::uint8_t> narrow, PodVector<std::uint16_t> wide, std::vector<double> table) {
  CompactValues values;
  values.index_bytes_ = narrow.empty() && !wide.empty() ? 2 : 1;
  values.narrow_ = std::move(narrow);
  values.wide_ = std::move(wide);
  values.table_ = std::move(table);
  return values;
}

CompactValuesCopy::CompactValuesCopy(const CompactValues& source, std::size_t entries, bool keep_form)
    : source_(source), bytes_(keep_form ? source.index_bytes() : 0) {
  if (bytes_ == 0) plain_.resize(entries);
  if (bytes_ == 1) narrow_.resize(entries);
  if (bytes_ == 2) wide_.resize(entries);
}

CompactValues CompactValuesCopy::finish() && {
  if (bytes_ == 0) return CompactValues(std::move(plain_));
  return CompactValues::indexed(std::move(narrow_), std::move(wide_), source_.table());
}

PodVector<double> CompactValues::expanded() const {
  PodVector<double> out(size());
  visit([&](auto read) {
    oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::size_t>(0, out.size(), std::size_t{1} << 16), [&](const auto& part) {
      for (std::size_t i = part.begin(); i < part.end(); ++i) out[i] = read(i);
    });
  });
  return out;
}

bool operator==(const CompactValues& a, const CompactValues& b) {
  if (a.size() != b.size()) return false;
  return a.visit([&](auto read_a) {
    return b.visit([&](auto read_b) {
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (bits_of(read_a(i)) != bits_of(read_b(i))) return false;
      }
      return true;
    });
  });
}

}  // namespace mdpvi
