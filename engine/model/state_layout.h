#pragma once
// Bit-packed states: each variable takes ceil(log2(high - low + 1)) bits of a state's
// 64-bit words, stored as value - low; a field never straddles two words.
#include "engine/model/value_type.h"
#include "engine/model/pod_vector.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mdpvi {

class StateLayout {
 public:
  struct Field {
    std::uint32_t word = 0;
    std::uint32_t shift = 0;
    std::uint64_t mask = 0;  // of the width, unshifted
    std::int32_t low = 0;
    std::int32_t high = 0;
  };

  StateLayout() = default;
  // Pre: low <= high for each range.
  explicit StateLayout(const std::vector<std::pair<std::int32_t, std::int32_t>>& ranges);

  std::uint32_t words() const { return words_; }
  std::size_t num_variables() const { return fields_.size(); }
  const Field& field(std::size_t v) const { return fields_[v]; }

  std::int32_t get(const std::uint64_t* state, std::size_t v) const {
    const Field& f = fields_[v];
    // In 64 bits: a range as wide as [-2^31..2^31-1] overflows 32-bit arithmetic.
    return static_cast<std::int32_t>(static_cast<std::int64_t>((state[f.word] >> f.shift) & f.mask) + f.low);
  }
  // Pre: low <= value <= high.
  void set(std::uint64_t* state, std::size_t v, std::int32_t value) const {
    const Field& f = fields_[v];
    const auto offset = static_cast<std::uint64_t>(static_cast<std::int64_t>(value) - f.low);
    state[f.word] = (state[f.word] & ~(f.mask << f.shift)) | (offset << f.shift);
  }
  // Per word, the bits of the variables v with used[v].
  std::vector<std::uint64_t> mask(const std::vector<bool>& used) const {
    std::vector<std::uint64_t> bits(words_, 0);
    for (std::size_t v = 0; v < fields_.size(); ++v) {
      if (used[v]) bits[fields_[v].word] |= fields_[v].mask << fields_[v].shift;
    }
    return bits;
  }
  void decode(const std::uint64_t* state, double* values) const {
    for (std::size_t v = 0; v < fields_.size(); ++v) values[v] = get(state, v);
  }

 private:
  std::vector<Field> fields_;
  std::uint32_t words_ = 1;
};

// The values of the model's variables in each state (PRISM's .sta), packed.
struct StateValuations {
  std::vector<std::string> variables;
  std::vector<ValueType> types;  // integer or boolean, per variable
  StateLayout layout;
  PodVector<std::uint64_t> packed;  // num_states * layout.words()

  std::int32_t value(std::uint64_t state, std::size_t variable) const {
    return layout.get(&packed[state * layout.words()], variable);
  }
  void decode(std::uint64_t state, double* values) const { layout.decode(&packed[state * layout.words()], values); }
};

// Packs row-major values (num_states * variables.size()) with each variable's
// range taken from the values themselves.
StateValuations pack_valuations(std::vector<std::string> variables, std::vector<ValueType> types,
                                const std::vector<std::int32_t>& values, std::uint64_t num_states);

}  // namespace mdpvi
