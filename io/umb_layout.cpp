#include "io/umb_layout.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace mdpvi::io::umb {

namespace {

void put_bits(std::uint8_t* bytes, std::uint64_t offset, std::uint32_t bits, std::uint64_t value) {
  for (std::uint32_t i = 0; i < bits; ++i) {
    const std::uint64_t at = offset + i;
    bytes[at / 8] |= static_cast<std::uint8_t>(((value >> i) & 1u) << (at % 8));
  }
}

std::uint32_t count_of(const nlohmann::ordered_json& item, const char* key) {
  const nlohmann::ordered_json& value = item.at(key);
  if (!value.is_number_unsigned() || value.get<std::uint64_t>() > 4096) {
    throw std::invalid_argument(std::string(key) + ": expected a number of bits, found " + value.dump());
  }
  return value.get<std::uint32_t>();
}

}  // namespace

Field parse_field(const nlohmann::ordered_json& item) {
  if (!item.is_object()) throw std::invalid_argument("expected a variable or padding, found " + item.dump());
  Field field;
  if (item.contains("padding")) {
    field.bits = count_of(item, "padding");
    return field;
  }
  if (!item.contains("name") || !item["name"].is_string()) throw std::invalid_argument("a variable without a name: " + item.dump());
  field.name = item["name"].get<std::string>();
  if (!item.contains("type") || !item["type"].is_object()) throw std::invalid_argument(field.name + ": no type");
  const nlohmann::ordered_json& type = item["type"];
  const std::string kind = type.value("type", std::string());
  field.bits = type.contains("size") ? count_of(type, "size") : (kind == "bool" ? 1 : 0);
  if (kind == "uint" && field.bits >= 1 && field.bits <= 32) {
    field.kind = Field::Kind::unsigned_int;
  } else if (kind == "int" && field.bits >= 1 && field.bits <= 32) {
    field.kind = Field::Kind::signed_int;
  } else if (kind == "bool" && field.bits == 1) {
    field.kind = Field::Kind::boolean;
  } else {
    throw std::invalid_argument(field.name + ": type " + type.dump() + " is not supported (int, uint up to 32 bits, bool)");
  }
  if (item.value("is-optional", false)) throw std::invalid_argument(field.name + ": optional variables are not supported");
  return field;
}

nlohmann::ordered_json field_json(const Field& field) {
  if (field.kind == Field::Kind::padding) return {{"padding", field.bits}};
  const char* type = field.kind == Field::Kind::boolean ? "bool" : field.kind == Field::Kind::signed_int ? "int" : "uint";
  return {{"name", field.name}, {"type", {{"type", type}, {"size", field.bits}}}};
}

std::uint64_t bytes_per_item(const std::vector<Field>& fields) {
  std::uint64_t bits = 0;
  for (const Field& f : fields) bits += f.bits;
  return (bits + 7) / 8;
}

StateValuations unpack_valuations(const std::vector<Field>& fields, const std::vector<std::uint8_t>& packed,
                                  std::uint64_t states) {
  // Where each variable's bits are: a byte, a shift within the 8 bytes loaded from it
  // (a field of up to 32 bits at a shift of up to 7 always fits), and its width.
  struct Place {
    std::uint64_t byte;
    std::uint32_t shift, bits;
    bool is_signed;
  };
  std::vector<std::string> names;
  std::vector<ValueType> types;
  std::vector<Place> places;
  std::uint64_t offset = 0;
  for (const Field& f : fields) {
    if (f.kind != Field::Kind::padding) {
      names.push_back(f.name);
      types.push_back(f.kind == Field::Kind::boolean ? ValueType::boolean : ValueType::integer);
      places.push_back({offset / 8, static_cast<std::uint32_t>(offset % 8), f.bits, f.kind == Field::Kind::signed_int});
    }
    offset += f.bits;
  }
  const std::uint64_t stride = bytes_per_item(fields);
  if (packed.size() < states * stride + 8) throw std::logic_error("unpack_valuations: the buffer needs 8 bytes of slack");
  auto value = [&](std::uint64_t s, std::size_t v) {
    const Place& p = places[v];
    std::uint64_t window;
    std::memcpy(&window, packed.data() + s * stride + p.byte, 8);
    const std::uint64_t raw = (window >> p.shift) & ((std::uint64_t{1} << p.bits) - 1);
    std::int64_t x = static_cast<std::int64_t>(raw);
    if (p.is_signed && (raw >> (p.bits - 1)) & 1u) x -= std::int64_t{1} << p.bits;
    if (x > std::numeric_limits<std::int32_t>::max()) {
      throw std::invalid_argument("state " + std::to_string(s) + ": " + names[v] + " = " + std::to_string(x) + " does not fit in 32 bits");
    }
    return static_cast<std::int32_t>(x);
  };
  // Two passes, no copy of the values: each variable's range, then the packed states.
  const std::size_t width = names.size();
  std::vector<std::pair<std::int32_t, std::int32_t>> ranges(width, {0, 0});
  for (std::size_t v = 0; v < width && states > 0; ++v) ranges[v] = {value(0, v), value(0, v)};
  for (std::uint64_t s = 1; s < states; ++s) {
    for (std::size_t v = 0; v < width; ++v) {
      const std::int32_t x = value(s, v);
      ranges[v] = {std::min(ranges[v].first, x), std::max(ranges[v].second, x)};
    }
  }
  StateValuations valuations{std::move(names), std::move(types), StateLayout(ranges), {}};
  const std::uint32_t words = valuations.layout.words();
  valuations.packed.resize(states * words);
  for (std::uint64_t s = 0; s < states; ++s) {
    std::uint64_t* state = &valuations.packed[s * words];
    std::fill(state, state + words, 0);
    for (std::size_t v = 0; v < width; ++v) valuations.layout.set(state, v, value(s, v));
  }
  return valuations;
}

std::vector<Field> fields_for(const StateValuations& valuations) {
  std::vector<Field> fields;
  std::uint64_t bits = 0;
  for (std::size_t v = 0; v < valuations.variables.size(); ++v) {
    Field f{Field::Kind::boolean, valuations.variables[v], 1};
    if (valuations.types[v] != ValueType::boolean) {
      // The packed layout's range holds every value (the declared range of a built
      // model, the values' own of a read one), and 0.
      const std::int64_t low = std::min<std::int64_t>(0, valuations.layout.field(v).low);
      const std::int64_t high = std::max<std::int64_t>(0, valuations.layout.field(v).high);
      if (low >= 0) {
        f.kind = Field::Kind::unsigned_int;
        f.bits = std::max<std::uint32_t>(1, static_cast<std::uint32_t>(std::bit_width(static_cast<std::uint64_t>(high))));
      } else {  // two's complement: -2^(b-1) <= low and high < 2^(b-1)
        f.kind = Field::Kind::signed_int;
        const std::uint64_t magnitude = std::max<std::uint64_t>(static_cast<std::uint64_t>(-(low + 1)), static_cast<std::uint64_t>(high));
        f.bits = 1 + static_cast<std::uint32_t>(std::bit_width(magnitude));
      }
    }
    bits += f.bits;
    fields.push_back(std::move(f));
  }
  if (bits % 8 != 0) fields.push_back(Field{Field::Kind::padding, "", static_cast<std::uint32_t>(8 - bits % 8)});
  return fields;
}

std::vector<std::uint8_t> pack_valuations(const std::vector<Field>& fields, const StateValuations& valuations,
                                          std::uint64_t states) {
  const std::uint64_t stride = bytes_per_item(fields);
  std::vector<std::uint8_t> packed(states * stride, 0);
  for (std::uint64_t s = 0; s < states; ++s) {
    std::uint64_t offset = 0;
    std::size_t v = 0;
    for (const Field& f : fields) {
      if (f.kind != Field::Kind::padding) {
        const std::uint64_t mask = f.bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << f.bits) - 1;
        put_bits(packed.data() + s * stride, offset, f.bits, static_cast<std::uint64_t>(static_cast<std::int64_t>(valuations.value(s, v++))) & mask);
      }
      offset += f.bits;
    }
  }
  return packed;
}

}  // namespace mdpvi::io::umb
