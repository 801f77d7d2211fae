#include "io/umb_reader.h"

#include "engine/model/bit_words.h"
#include "io/archive.h"
#include "io/parse_error.h"
#include "io/text_cursor.h"
#include "io/umb_layout.h"

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace mdpvi::io {

namespace {

using json = nlohmann::ordered_json;

// Reads the next bytes of one entry, from the archive or from a buffered copy.
using ReadBytes = std::function<void(void*, std::size_t)>;

// An annotation of index.json: an atomic proposition or a reward structure.
struct Annotation {
  std::string id;
  std::string name;  // the alias, else the id (none for a reward whose id is a number)
  std::vector<std::string> applies_to;
};

struct Index {
  std::uint64_t states = 0, initial_states = 0, choices = 0, branches = 0;
  std::uint64_t choice_actions = 0, branch_actions = 0;
  bool dtmc = false;
  bool ctmc = false;  // "stochastic" time: embedded probabilities times exit rates
  std::vector<Annotation> aps, rewards;
  std::unordered_set<std::string> ap_ids, reward_ids;  // the annotations' ids, looked up per entry
  std::vector<umb::Field> valuation;  // empty: no valuations
};

// index.json as an ordered_json, built in time linear in its size: nlohmann's own
// parse inserts each key of an ordered_json object by a search among the keys before
// it, which made a file of 100,000 labels take most of a minute. A key given twice
// keeps its last value, as that parse does.
class OrderedJsonBuilder {
 public:
  explicit OrderedJsonBuilder(json& root) : root_(root) {}
  bool null() { return put(json(nullptr)); }
  bool boolean(bool value) { return put(json(value)); }
  bool number_integer(json::number_integer_t value) { return put(json(value)); }
  bool number_unsigned(json::number_unsigned_t value) { return put(json(value)); }
  bool number_float(json::number_float_t value, const json::string_t&) { return put(json(value)); }
  bool string(json::string_t& value) { return put(json(std::move(value))); }
  bool binary(json::binary_t& value) { return put(json(json::binary_t(std::move(value)))); }
  bool start_object(std::size_t) { return open(json::object()); }
  bool key(json::string_t& key) {
    key_ = std::move(key);
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool end_array() { return close(); }
  // The parser's exception, with its type (parse_error carries the byte).
  [[noreturn]] bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) {
    if (const auto* parse = dynamic_cast<const json::parse_error*>(&error)) throw *parse;
    if (const auto* range = dynamic_cast<const json::out_of_range*>(&error)) throw *range;
    throw std::runtime_error(error.what());
  }

 private:
  struct Frame {
    json* value;
    std::unordered_map<std::string, std::size_t> keys;  // an object's: where each key is
  };

  bool open(json&& container) {
    json* at = place(std::move(container));
    frames_.push_back({at, {}});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }
  bool put(json&& value) {
    place(std::move(value));
    return true;
  }
  // Where value goes: the root, an array's end, or under the pending key (appended, or
  // over the value an earlier copy of the key had).
  json* place(json&& value) {
    if (frames_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Frame& frame = frames_.back();
    if (frame.value->is_array()) {
      json::array_t& array = frame.value->get_ref<json::array_t&>();
      array.push_back(std::move(value));
      return &array.back();
    }
    json::object_t& object = frame.value->get_ref<json::object_t&>();
    const auto [known, added] = frame.keys.try_emplace(key_, object.size());
    if (!added) {
      json& earlier = (object.begin() + static_cast<std::ptrdiff_t>(known->second))->second;
      earlier = std::move(value);
      return &earlier;
    }
    object.emplace_back(std::move(key_), std::move(value));  // the vector's: no search among the keys
    return &object.back().second;
  }

  json& root_;
  std::vector<Frame> frames_;
  std::string key_;
};

// Where a byte offset of a text is: its 1-based line and column, for errors.
std::pair<std::size_t, std::size_t> line_and_column(const std::string& text, std::size_t byte) {
  byte = std::min(byte, text.size());
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + byte, '\n'));
  const std::size_t newline = byte == 0 ? std::string::npos : text.rfind('\n', byte - 1);
  return {line, byte - (newline == std::string::npos ? 0 : newline + 1) + 1};
}

class UmbReader {
 public:
  explicit UmbReader(const std::string& path) : archive_(path) {}
  UmbReader(const std::string& name, const void* data, std::size_t size) : archive_(name, data, size) {}

  SparseMdp read() {
    std::vector<std::pair<std::string, std::vector<char>>> early;  // entries before index.json
    while (archive_.next_entry()) {
      const std::string name = archive_.entry_name();
      if (!index_) {
        std::vector<char> bytes = read_whole_entry();
        if (name == "index.json") {
          parse_index(std::string(bytes.begin(), bytes.end()));
          for (auto& [early_name, early_bytes] : early) read_buffered(early_name, early_bytes);
          early.clear();
        } else {
          early.emplace_back(name, std::move(bytes));
        }
        continue;
      }
      read_entry(name, archive_.entry_size(), [&](void* into, std::size_t bytes) { archive_.read(into, bytes); });
    }
    if (!index_) fail("", "no index.json in the archive");
    return finish();
  }

 private:
  [[noreturn]] void fail(const std::string& entry, const std::string& message) const {
    throw ParseError(archive_.path(), 0, 0, (entry.empty() ? "" : entry + ": ") + message);
  }

  // An entry's size bytes, grown a slice at a time as they come: never more memory than
  // the archive holds, whatever its header declares.
  static std::vector<char> read_growing(std::uint64_t size, const ReadBytes& read) {
    constexpr std::uint64_t kSlice = 1 << 24;
    std::vector<char> bytes;
    for (std::uint64_t at = 0; at < size; at += kSlice) {
      bytes.resize(static_cast<std::size_t>(std::min(size, at + kSlice)));
      read(bytes.data() + at, bytes.size() - at);
    }
    return bytes;
  }

  std::vector<char> read_whole_entry() {
    return read_growing(archive_.entry_size(), [&](void* into, std::size_t n) { archive_.read(into, n); });
  }

  void read_buffered(const std::string& name, const std::vector<char>& bytes) {
    std::size_t at = 0;
    read_entry(name, bytes.size(), [&](void* into, std::size_t n) {
      std::memcpy(into, bytes.data() + at, n);
      at += n;
    });
  }

  // ---- index.json ----

  void parse_index(const std::string& text) {
    json root;
    try {
      OrderedJsonBuilder builder(root);
      json::sax_parse(text, &builder);
    } catch (const json::parse_error& error) {
      const auto [line, column] = line_and_column(text, error.byte == 0 ? 0 : error.byte - 1);
      throw ParseError(archive_.path() + ":index.json", line, column, "not valid JSON");
    } catch (const json::exception& error) {  // found by fuzzing: a number past 64 bits
      fail("index.json", std::string("cannot be read: ") + error.what());
    }
    try {
      index_ = describe(root);
    } catch (const json::exception& error) {  // a value of another type than the format's
      fail("index.json", std::string("unexpected content: ") + error.what());
    }
  }

  Index describe(const json& root) const {
    Index index;
    const json& ts = member(root, "transition-system", "");
    const std::string time = text_of(member(ts, "time", "transition-system"), "transition-system.time");
    if (time != "discrete" && time != "stochastic") {
      fail("index.json", "time \"" + time + "\": only discrete-time models (MDPs, DTMCs) and CTMCs are supported");
    }
    const std::uint64_t players = count(ts, "#players");
    if (players > 1) fail("index.json", std::to_string(players) + " players: games are not supported");
    if (time == "stochastic" && players != 0) fail("index.json", "stochastic time with 1 player (a CTMDP or MA) is not supported");
    index.dtmc = players == 0;
    index.ctmc = time == "stochastic";
    if (index.ctmc) {
      check_double_type(ts.contains("exit-rate-type") ? ts["exit-rate-type"] : json(), "transition-system.exit-rate-type");
    }
    index.states = count(ts, "#states");
    index.initial_states = count(ts, "#initial-states");
    index.choices = count(ts, "#choices");
    index.branches = count(ts, "#branches");
    index.choice_actions = optional_count(ts, "#choice-actions");
    index.branch_actions = optional_count(ts, "#branch-actions");
    if (optional_count(ts, "#observations") > 0) fail("index.json", "observations (POMDPs) are not supported");
    if (index.states == 0 || index.states >= std::numeric_limits<std::uint32_t>::max()) {
      fail("index.json", "#states " + std::to_string(index.states) + ": must be between 1 and 2^32-2");
    }
    // Far beyond any model that fits in memory, and small enough that no size computed
    // from them (count * 8 bytes) wraps around to match a short entry.
    constexpr std::uint64_t kMostItems = std::uint64_t{1} << 48;
    for (auto [what, n] : {std::pair{"#choices", index.choices}, std::pair{"#branches", index.branches},
                           std::pair{"#choice-actions", index.choice_actions}, std::pair{"#branch-actions", index.branch_actions}}) {
      if (n > kMostItems) fail("index.json", std::string(what) + " " + std::to_string(n) + ": more than mdpvi supports (2^48)");
    }
    check_double_type(ts.contains("branch-probability-type") ? ts["branch-probability-type"] : json(),
                      "transition-system.branch-probability-type");
    if (root.contains("annotations")) read_annotations(root["annotations"], index);
    if (root.contains("valuations")) read_valuation_layout(root["valuations"], index);
    return index;
  }

  const json& member(const json& object, const char* key, const std::string& where) const {
    if (!object.is_object() || !object.contains(key)) {
      fail("index.json", "expected \"" + std::string(key) + "\"" + (where.empty() ? "" : " in " + where) + ", found none");
    }
    return object[key];
  }
  std::string text_of(const json& value, const std::string& where) const {
    if (!value.is_string()) fail("index.json", where + ": expected a string, found " + value.dump());
    return value.get<std::string>();
  }
  std::uint64_t count(const json& ts, const char* key) const {
    const json& value = member(ts, key, "transition-system");
    if (!value.is_number_unsigned()) fail("index.json", std::string(key) + ": expected a count, found " + value.dump());
    return value.get<std::uint64_t>();
  }
  std::uint64_t optional_count(const json& ts, const char* key) const { return ts.contains(key) ? count(ts, key) : 0; }

  // Probabilities and rewards: 64-bit doubles only (no rationals or intervals yet).
  void check_double_type(const json& type, const std::string& where) const {
    if (type.is_null()) return;  // the default: double
    const bool is_double = type.is_object() && type.value("type", std::string()) == "double" && type.value("size", 64) == 64;
    if (!is_double) fail("index.json", where + ": only 64-bit double values are supported, found " + type.dump());
  }

  void read_annotations(const json& groups, Index& index) const {
    if (!groups.is_object()) fail("index.json", "annotations: expected an object, found " + groups.dump());
    for (const auto& [group, annotations] : groups.items()) {
      if (group != "aps" && group != "rewards") continue;  // other groups mean nothing to mdpvi
      if (!annotations.is_object()) fail("index.json", "annotations." + group + ": expected an object");
      for (const auto& [id, description] : annotations.items()) {
        const std::string where = "annotations." + group + "." + id;
        Annotation a{id, description.contains("alias") ? text_of(description["alias"], where + ".alias") : id, {}};
        if (group == "rewards" && !description.contains("alias") && std::all_of(id.begin(), id.end(), ::isdigit)) {
          a.name.clear();  // PRISM numbers an unnamed structure
        }
        for (const json& entity : member(description, "applies-to", where)) a.applies_to.push_back(text_of(entity, where + ".applies-to"));
        const json& type = member(description, "type", where);
        if (group == "aps") {
          if (type.value("type", std::string()) != "bool") fail("index.json", where + ": expected type bool, found " + type.dump());
          if (a.applies_to != std::vector<std::string>{"states"}) fail("index.json", where + ": only propositions on states are supported");
          index.ap_ids.insert(a.id);
          index.aps.push_back(std::move(a));
        } else {
          check_double_type(type, where + ".type");
          index.reward_ids.insert(a.id);
          index.rewards.push_back(std::move(a));
        }
      }
    }
  }

  void read_valuation_layout(const json& valuations, Index& index) const {
    if (!valuations.contains("states")) return;
    const json& states = valuations["states"];
    const json& classes = member(states, "classes", "valuations.states");
    if (!classes.is_array() || classes.size() != 1) {
      fail("index.json", "valuations.states: only one valuation class is supported, found " + std::to_string(classes.size()));
    }
    for (const json& item : member(classes[0], "variables", "valuations.states.classes[0]")) {
      try {
        index.valuation.push_back(umb::parse_field(item));
      } catch (const std::invalid_argument& error) {
        fail("index.json", std::string("valuations: ") + error.what());
      }
    }
  }

  // ---- the arrays ----

  // Each known entry, read straight into the model's arrays; unknown ones are skipped.
  void read_entry(const std::string& name, std::uint64_t size, const ReadBytes& read) {
    const Index& x = *index_;
    if (name == "state-to-choices.bin") {
      read_offsets(name, size, x.states + 1, x.choices, {"state", "choice"}, mdp_.row_group_starts, read);
      have_state_choices_ = true;
    } else if (name == "choice-to-branches.bin") {
      read_offsets(name, size, x.choices + 1, x.branches, {"choice", "branch"}, mdp_.row_starts, read);
    } else if (name == "branch-to-target.bin") {
      read_targets(name, size, read);
    } else if (name == "branch-to-probability.bin") {
      read_array(name, size, x.branches, mdp_.values.plain(), read);
    } else if (name == "state-is-initial.bin") {
      initial_ = read_bits(name, size, x.states, read);
    } else if (name == "state-to-exit-rate.bin" && x.ctmc) {
      read_array(name, size, x.states, exit_rates_, read);
    } else if (name == "valuations/states/valuations.bin") {
      read_valuations(name, size, read);
    } else if (name.starts_with("actions/")) {
      read_action_part(name, size, read);
    } else if (name.starts_with("annotations/")) {
      read_annotation(name, size, read);
    }
  }

  // The entry's size must be what the index says, and no more than the machine's
  // memory: arrays are sized from it before their data comes.
  void expect_size(const std::string& name, std::uint64_t size, std::uint64_t expected, const std::string& why) const {
    if (size != expected) {
      fail(name, std::to_string(size) + " bytes, expected " + std::to_string(expected) + " (" + why + ")");
    }
    const std::uint64_t memory = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
    if (size > memory) fail(name, std::to_string(size) + " bytes: more than this machine's memory (" + std::to_string(memory) + ")");
  }

  template <typename T>
  void read_array(const std::string& name, std::uint64_t size, std::uint64_t count, PodVector<T>& into, const ReadBytes& read) {
    expect_size(name, size, count * sizeof(T), std::to_string(count) + " values of " + std::to_string(sizeof(T)) + " bytes");
    into.resize(count);
    read_populated(into.data(), count * sizeof(T), read);
  }

  // What an offset array counts, for its messages: "choice 3 has no branch".
  struct OffsetItems {
    const char* item;
    const char* part;
  };

  // Offsets a slice at a time into the model's packed form (packed_offsets.h), each
  // checked as it comes (from 0, increasing, to total): packing keeps only
  // what is monotone and spans less than 2^32 per block, so nothing else may reach it.
  void read_offsets(const std::string& name, std::uint64_t size, std::uint64_t count, std::uint64_t total,
                    OffsetItems items, PackedOffsets& into, const ReadBytes& read) {
    expect_size(name, size, count * 8, std::to_string(count) + " values of 8 bytes");
    into.resize(count);
    std::vector<std::uint64_t> slice(std::min<std::uint64_t>(count, std::uint64_t{1} << 20));
    std::uint64_t previous = 0;
    for (std::uint64_t at = 0; at < count; at += slice.size()) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(slice.size(), count - at));
      read(slice.data(), n * 8);
      for (std::size_t k = 0; k < n; ++k) {
        const std::uint64_t i = at + k, value = slice[k];
        if (i == 0 && value != 0) fail(name, "the first offset is " + std::to_string(value) + ", expected 0");
        if (i > 0 && value <= previous) fail(name, no_part(items, i - 1, previous, value));
        if (i + 1 == count && value != total) {
          fail(name, "the last offset is " + std::to_string(value) + ", expected " + std::to_string(total) + " (the number of " + items.part + "es)");
        }
        if (value > total) {
          fail(name, "offset " + std::to_string(value) + " at " + std::to_string(i) + " passes the number of " + items.part + "es (" + std::to_string(total) + ")");
        }
        into.set(i, previous = value);
      }
    }
  }

  static std::string no_part(OffsetItems items, std::uint64_t i, std::uint64_t begin, std::uint64_t end) {
    return std::string(items.item) + " " + std::to_string(i) + " has no " + items.part + " (offsets " + std::to_string(begin) + ", " + std::to_string(end) + ")";
  }

  // Reads into a fresh array a slice at a time, each slice's pages backed by all cores
  // first: memory is committed only just ahead of the data that came, never for what an
  // index or a truncated archive merely declares.
  static void read_populated(void* into, std::uint64_t bytes, const ReadBytes& read) {
    constexpr std::uint64_t kSlice = std::uint64_t{128} << 20;
    for (std::uint64_t at = 0; at < bytes; at += kSlice) {
      const std::uint64_t n = std::min(kSlice, bytes - at);
      populate_in_parallel(static_cast<char*>(into) + at, n);
      read(static_cast<char*>(into) + at, n);
    }
  }

  // 64-bit targets become the model's 32-bit columns a block at a time.
  void read_targets(const std::string& name, std::uint64_t size, const ReadBytes& read) {
    const std::uint64_t n = index_->branches;
    expect_size(name, size, n * 8, std::to_string(n) + " branches of 8 bytes");
    mdp_.columns.resize(n);
    std::vector<std::uint64_t> block(std::min<std::uint64_t>(n, 1 << 16));
    for (std::uint64_t done = 0; done < n;) {
      const std::size_t m = static_cast<std::size_t>(std::min<std::uint64_t>(n - done, block.size()));
      read(block.data(), m * 8);
      for (std::size_t i = 0; i < m; ++i) {
        if (block[i] >= index_->states) {
          fail(name, "branch " + std::to_string(done + i) + " goes to " + std::to_string(block[i]) + ", not a state (#states " +
                         std::to_string(index_->states) + ")");
        }
        mdp_.columns[done + i] = static_cast<std::uint32_t>(block[i]);
      }
      done += m;
    }
  }

  // A bit set over count items, in 64-bit words (a shorter whole number of bytes is
  // taken too).
  StateSet read_bits(const std::string& name, std::uint64_t size, std::uint64_t count, const ReadBytes& read) {
    const std::uint64_t words = (count + 63) / 64;
    if (size < (count + 7) / 8 || size > words * 8) {
      fail(name, std::to_string(size) + " bytes, expected " + std::to_string(words * 8) + " (a bit per item, " +
                     std::to_string(count) + " items, in 64-bit words)");
    }
    BitWords bits(count);  // UMB's layout of a bit set is StateSet's blocks'
    read(bits.data(), size);
    if (count % 64 != 0) bits.word(words - 1) &= (std::uint64_t{1} << (count % 64)) - 1;  // padding bits mean nothing
    return bits.to_set(count);
  }

  void read_valuations(const std::string& name, std::uint64_t size, const ReadBytes& read) {
    if (index_->valuation.empty()) fail(name, "index.json describes no state valuations");
    const std::uint64_t bytes = umb::bytes_per_item(index_->valuation);
    expect_size(name, size, index_->states * bytes, std::to_string(index_->states) + " states of " + std::to_string(bytes) + " bytes");
    const std::vector<char> raw = read_growing(size, read);
    std::vector<std::uint8_t> packed(raw.begin(), raw.end());
    packed.resize(packed.size() + 8, 0);  // unpack_valuations' slack
    try {
      mdp_.valuations = umb::unpack_valuations(index_->valuation, packed, index_->states);
    } catch (const std::invalid_argument& error) {
      fail(name, error.what());
    }
  }

  // actions/{choices,branches}/{values,string-mapping,strings}.bin
  void read_action_part(const std::string& name, std::uint64_t size, const ReadBytes& read) {
    const bool of_choices = name.starts_with("actions/choices/");
    if (!of_choices && !name.starts_with("actions/branches/")) return;
    ActionTable& table = of_choices ? choice_actions_ : branch_actions_;
    const std::uint64_t items = of_choices ? index_->choices : index_->branches;
    const std::uint64_t actions = of_choices ? index_->choice_actions : index_->branch_actions;
    const std::string file = name.substr(name.rfind('/') + 1);
    if (file == "values.bin") {
      expect_size(name, size, items * 4, std::to_string(items) + " action indices of 4 bytes");
      table.of_item.resize(items);
      read_populated(table.of_item.data(), size, read);
    } else if (file == "string-mapping.bin") {
      read_array(name, size, actions + 1, table.offsets, read);
    } else if (file == "strings.bin") {
      const std::vector<char> bytes = read_growing(size, read);
      table.strings.assign(bytes.begin(), bytes.end());
    }
  }

  // annotations/aps/ID/states/values.bin, annotations/rewards/ID/ENTITY/values.bin
  void read_annotation(const std::string& name, std::uint64_t size, const ReadBytes& read) {
    const std::size_t group_end = name.find('/', 12);
    const std::size_t id_end = name.find('/', group_end + 1);
    const std::size_t entity_end = name.find('/', id_end + 1);
    if (entity_end == std::string::npos || name.substr(entity_end + 1) != "values.bin") return;
    const std::string group = name.substr(12, group_end - 12);
    const std::string id = name.substr(group_end + 1, id_end - group_end - 1);
    const std::string entity = name.substr(id_end + 1, entity_end - id_end - 1);
    if (group == "aps") {
      if (!index_->ap_ids.count(id)) fail(name, "index.json declares no proposition \"" + id + "\"");
      if (entity == "states") ap_values_[id] = read_bits(name, size, index_->states, read);
    } else if (group == "rewards") {
      if (!index_->reward_ids.count(id)) fail(name, "index.json declares no reward \"" + id + "\"");
      const std::uint64_t items = entity == "states" ? index_->states : entity == "choices" ? index_->choices : index_->branches;
      if (entity != "states" && entity != "choices" && entity != "branches") return;
      PodVector<double>& values = reward_values_[id][entity];
      read_array(name, size, items, values, read);
      for (std::uint64_t i = 0; i < items; ++i) {
        if (!std::isfinite(values[i])) fail(name, "the reward of " + entity + " " + std::to_string(i) + " is not finite");
      }
    }
  }

  // ---- checks and the model ----

  SparseMdp finish() {
    const Index& x = *index_;
    mdp_.type = x.ctmc ? ModelType::ctmc : x.dtmc ? ModelType::dtmc : ModelType::mdp;
    if (!have_state_choices_) {
      if (x.choices != x.states) fail("state-to-choices.bin", "missing, and #choices differs from #states");
      mdp_.row_group_starts.resize(x.states + 1);
      for (std::uint64_t s = 0; s <= x.states; ++s) mdp_.row_group_starts.set(s, s);
    }
    require(mdp_.row_starts.size() == x.choices + 1, "choice-to-branches.bin");
    require(mdp_.columns.size() == x.branches, "branch-to-target.bin");
    require(mdp_.values.size() == x.branches, "branch-to-probability.bin");
    require(initial_.has_value(), "state-is-initial.bin");
    if (x.dtmc && x.choices != x.states) fail("index.json", "a DTMC (0 players) with #choices " + std::to_string(x.choices) + " != #states");
    check_distributions();
    if (x.ctmc) apply_exit_rates();
    add_initial_states();
    for (const Annotation& ap : x.aps) {
      auto values = ap_values_.find(ap.id);
      if (values == ap_values_.end()) fail("annotations/aps/" + ap.id + "/states/values.bin", "missing");
      mdp_.labels.push_back({ap.name, std::move(values->second)});
    }
    for (const Annotation& reward : x.rewards) add_reward(reward);
    add_actions();
    sort_branches();
    if (!x.valuation.empty() && !mdp_.valuations) fail("valuations/states/valuations.bin", "missing (index.json describes valuations)");
    check_invariants(mdp_);
    return std::move(mdp_);
  }

  void require(bool present, const std::string& entry) const {
    if (!present) fail(entry, "missing");
  }

  void check_distributions() const {
    for (std::uint64_t c = 0; c < mdp_.num_choices(); ++c) {
      double sum = 0.0;
      for (std::uint64_t k = mdp_.row_starts[c]; k < mdp_.row_starts[c + 1]; ++k) {
        if (!(mdp_.values[k] > 0.0 && mdp_.values[k] <= 1.0)) {
          fail("branch-to-probability.bin", "branch " + std::to_string(k) + " has probability " + exact_text(mdp_.values[k]) + ", outside (0,1]");
        }
        sum += mdp_.values[k];
      }
      if (std::abs(sum - 1.0) > kSumTolerance) {
        fail("branch-to-probability.bin", "the probabilities of choice " + std::to_string(c) + " sum to " + exact_text(sum) + ", not 1");
      }
    }
  }

  // A CTMC's rates: each branch's probability (of the embedded chain) times its state's
  // exit rate.
  void apply_exit_rates() {
    require(exit_rates_.size() == index_->states, "state-to-exit-rate.bin");
    for (std::uint32_t s = 0; s < index_->states; ++s) {
      if (!(exit_rates_[s] > 0.0) || !std::isfinite(exit_rates_[s])) {
        fail("state-to-exit-rate.bin", "state " + std::to_string(s) + " has exit rate " + exact_text(exit_rates_[s]) +
                                           ", not a finite number > 0");
      }
      for (std::uint64_t k = mdp_.row_starts[s]; k < mdp_.row_starts[s + 1]; ++k) {
        mdp_.values.plain()[k] *= exit_rates_[s];
      }
    }
  }

  void add_initial_states() {
    for (auto s = initial_->find_first(); s != StateSet::npos; s = initial_->find_next(s)) {
      mdp_.initial_states.push_back(static_cast<std::uint32_t>(s));
    }
    if (mdp_.initial_states.size() != index_->initial_states) {
      fail("state-is-initial.bin", std::to_string(mdp_.initial_states.size()) + " initial states, index.json declares " +
                                       std::to_string(index_->initial_states));
    }
    if (mdp_.initial_states.empty()) fail("state-is-initial.bin", "no initial state");
    mdp_.labels.push_back({"init", std::move(*initial_)});
  }

  void add_reward(const Annotation& reward) {
    RewardStructure structure{reward.name, {}, {}};
    auto& parts = reward_values_[reward.id];
    for (const std::string& entity : reward.applies_to) {
      if (!parts.count(entity)) fail("annotations/rewards/" + reward.id + "/" + entity + "/values.bin", "missing");
    }
    if (parts.count("states")) structure.state_rewards = std::move(parts["states"]);
    if (parts.count("choices")) structure.choice_rewards = std::move(parts["choices"]);
    if (parts.count("branches")) add_branch_rewards(parts["branches"], structure.choice_rewards.plain());
    mdp_.rewards.push_back(std::move(structure));
  }

  // Each choice's branches by target, as the builder and the .tra files have them
  // (PRISM's UMB keeps its own order); last, once nothing indexed by branch is left.
  void sort_branches() {
    std::vector<std::pair<std::uint32_t, double>> entries;
    for (std::uint64_t c = 0; c < mdp_.num_choices(); ++c) {
      const std::uint64_t begin = mdp_.row_starts[c], end = mdp_.row_starts[c + 1];
      if (!std::is_sorted(mdp_.columns.begin() + begin, mdp_.columns.begin() + end)) {
        entries.clear();
        for (std::uint64_t k = begin; k < end; ++k) entries.emplace_back(mdp_.columns[k], mdp_.values[k]);
        std::sort(entries.begin(), entries.end());
        for (std::uint64_t k = begin; k < end; ++k) std::tie(mdp_.columns[k], mdp_.values.plain()[k]) = entries[k - begin];
      }
      for (std::uint64_t k = begin + 1; k < end; ++k) {
        if (mdp_.columns[k] == mdp_.columns[k - 1]) {
          fail("branch-to-target.bin", "choice " + std::to_string(c) + " has two branches to state " + std::to_string(mdp_.columns[k]));
        }
      }
    }
  }

  // A reward on branches is its choice's expected reward (as in a .trew).
  void add_branch_rewards(const PodVector<double>& branch_rewards, PodVector<double>& choice_rewards) const {
    if (choice_rewards.empty()) choice_rewards.assign(mdp_.num_choices(), 0.0);
    for (std::uint64_t c = 0; c < mdp_.num_choices(); ++c) {
      for (std::uint64_t k = mdp_.row_starts[c]; k < mdp_.row_starts[c + 1]; ++k) choice_rewards[c] += mdp_.values[k] * branch_rewards[k];
    }
  }

  // Choice actions, or for a DTMC the action its branches share (none where they differ).
  void add_actions() {
    if (!choice_actions_.of_item.empty()) {
      mdp_.actions = action_names(choice_actions_, "actions/choices", index_->choice_actions);
      return;
    }
    if (branch_actions_.of_item.empty()) return;
    ChoiceActions branches = action_names(branch_actions_, "actions/branches", index_->branch_actions);
    mdp_.actions.emplace();
    mdp_.actions->names = std::move(branches.names);
    mdp_.actions->of_choice.resize(mdp_.num_choices());
    for (std::uint64_t c = 0; c < mdp_.num_choices(); ++c) {
      std::uint32_t action = branches.of_choice[mdp_.row_starts[c]];
      for (std::uint64_t k = mdp_.row_starts[c]; k < mdp_.row_starts[c + 1]; ++k) {
        if (branches.of_choice[k] != action) action = 0;
      }
      mdp_.actions->of_choice[c] = action;
    }
  }

  struct ActionTable {
    PodVector<std::uint32_t> of_item;
    PodVector<std::uint64_t> offsets;
    std::string strings;
  };

  // The table's strings as ChoiceActions names ("" is no action, index 0), per item.
  ChoiceActions action_names(ActionTable& table, const std::string& folder, std::uint64_t count) const {
    if (table.offsets.size() != count + 1) fail(folder + "/string-mapping.bin", "missing");
    if (table.offsets.front() != 0 || table.offsets.back() != table.strings.size() ||
        !std::is_sorted(table.offsets.begin(), table.offsets.end())) {
      fail(folder + "/string-mapping.bin", "the offsets do not cut strings.bin (" + std::to_string(table.strings.size()) + " bytes)");
    }
    ChoiceActions actions;
    actions.names.push_back("");
    std::vector<std::uint32_t> ours(count);
    for (std::uint64_t a = 0; a < count; ++a) {
      std::string name = table.strings.substr(table.offsets[a], table.offsets[a + 1] - table.offsets[a]);
      if (name.empty()) continue;  // ours[a] = 0: no action
      ours[a] = static_cast<std::uint32_t>(actions.names.size());
      actions.names.push_back(std::move(name));
    }
    for (std::size_t i = 0; i < table.of_item.size(); ++i) {
      if (table.of_item[i] >= count) {
        fail(folder + "/values.bin", "item " + std::to_string(i) + " has action " + std::to_string(table.of_item[i]) +
                                         ", but there are " + std::to_string(count));
      }
    }
    // PRISM's table starts with "" (no action), as ours does: the indices are ours.
    bool same_indices = true;
    for (std::uint64_t a = 0; a < count; ++a) same_indices = same_indices && ours[a] == a;
    if (same_indices) {
      actions.of_choice = std::move(table.of_item);
      return actions;
    }
    actions.of_choice.resize(table.of_item.size());
    for (std::size_t i = 0; i < table.of_item.size(); ++i) actions.of_choice[i] = ours[table.of_item[i]];
    return actions;
  }

  ArchiveReader archive_;
  std::optional<Index> index_;
  SparseMdp mdp_;
  bool have_state_choices_ = false;
  PodVector<double> exit_rates_;  // a CTMC's, from state-to-exit-rate.bin
  std::optional<StateSet> initial_;
  std::map<std::string, StateSet> ap_values_;
  std::map<std::string, std::map<std::string, PodVector<double>>> reward_values_;  // id -> entity -> values
  ActionTable choice_actions_, branch_actions_;
};

}  // namespace

SparseMdp read_umb_model(const std::string& path) { return UmbReader(path).read(); }

SparseMdp read_umb_bytes(const std::string& name, const void* data, std::size_t size) {
  return UmbReader(name, data, size).read();
}

}  // namespace mdpvi::io
