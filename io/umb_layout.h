#pragma once
// How UMB packs state valuations, for its reader and writer alike: each state's
// variables one after another in a little-endian bit string (the first variable in
// the lowest bits), "uint" unsigned, "int" two's complement, "bool" one bit, with
// "padding" items, each state taking a whole number of bytes.
#include "engine/model/state_layout.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mdpvi::io::umb {

struct Field {
  enum class Kind { unsigned_int, signed_int, boolean, padding };
  Kind kind = Kind::padding;
  std::string name;       // empty for padding
  std::uint32_t bits = 0;
};

// One item of a valuation class's "variables"; throws std::invalid_argument for a
// type mdpvi cannot hold (double, strings, more than 32 value bits).
Field parse_field(const nlohmann::ordered_json& item);
nlohmann::ordered_json field_json(const Field& field);

// Bytes per state: the fields' bits rounded up to a byte.
std::uint64_t bytes_per_item(const std::vector<Field>& fields);

// packed holds states * bytes_per_item(fields) bytes and 8 more (each field is read
// with one 8-byte load). Throws std::invalid_argument for a value that does not fit
// mdpvi's 32-bit integers.
StateValuations unpack_valuations(const std::vector<Field>& fields, const std::vector<std::uint8_t>& packed,
                                  std::uint64_t states);

// The fields a model's valuations need: each variable in as few bits as its range
// takes (uint where it has no negative value, else int; bool in one bit), padded to a
// byte.
std::vector<Field> fields_for(const StateValuations& valuations);
std::vector<std::uint8_t> pack_valuations(const std::vector<Field>& fields, const StateValuations& valuations,
                                          std::uint64_t states);

}  // namespace mdpvi::io::umb
