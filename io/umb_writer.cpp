#include "io/umb_writer.h"

#include "engine/model/bit_words.h"
#include "io/archive.h"
#include "io/umb_layout.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <set>
#include <stdexcept>
#include <vector>

namespace mdpvi::io {

namespace {

using json = nlohmann::ordered_json;

// UMB's ids are [a-z0-9_-]+; the name itself goes in the alias.
std::string unique_id(const std::string& name, std::set<std::string>& taken) {
  std::string id;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    id += std::isalnum(u) || c == '-' ? static_cast<char>(std::tolower(u)) : '_';
  }
  if (id.empty()) id = "_";
  while (!taken.insert(id).second) id += '_';
  return id;
}

template <typename T>
void add_array(ArchiveWriter& archive, const std::string& name, const T* data, std::size_t count) {
  archive.add(name, data, count * sizeof(T));
}

// n 8-byte values, value(i) each, a block at a time: an array the model keeps
// narrower (packed offsets, 32-bit columns, indexed values) is widened on the way,
// never whole.
template <typename T, typename Value>
void add_widened(ArchiveWriter& archive, const std::string& name, std::uint64_t n, const Value& value) {
  static_assert(sizeof(T) == 8);
  archive.begin(name, n * sizeof(T));
  std::vector<T> block(std::min<std::uint64_t>(n, 1 << 16));
  for (std::uint64_t done = 0; done < n; done += block.size()) {
    const std::size_t m = static_cast<std::size_t>(std::min<std::uint64_t>(n - done, block.size()));
    for (std::size_t i = 0; i < m; ++i) block[i] = value(done + i);
    archive.write(block.data(), m * sizeof(T));
  }
}

void add_offsets(ArchiveWriter& archive, const std::string& name, const PackedOffsets& offsets) {
  add_widened<std::uint64_t>(archive, name, offsets.size(), [&](std::uint64_t i) { return offsets[i]; });
}

void add_targets(ArchiveWriter& archive, const SparseMdp& mdp) {
  add_widened<std::uint64_t>(archive, "branch-to-target.bin", mdp.num_transitions(),
                             [&](std::uint64_t i) { return std::uint64_t{mdp.columns[i]}; });
}

void add_values(ArchiveWriter& archive, const std::string& name, const CompactValues& values) {
  add_widened<double>(archive, name, values.size(), [&](std::uint64_t i) { return values[i]; });
}

void add_actions(ArchiveWriter& archive, const ChoiceActions& actions) {
  std::vector<std::uint64_t> offsets{0};
  std::string strings;
  for (const std::string& name : actions.names) {
    strings += name;
    offsets.push_back(strings.size());
  }
  add_array(archive, "actions/choices/string-mapping.bin", offsets.data(), offsets.size());
  archive.add("actions/choices/strings.bin", strings);
  add_array(archive, "actions/choices/values.bin", actions.of_choice.data(), actions.of_choice.size());
}

json annotation(const std::string& alias, std::vector<std::string> applies_to, const char* type, int size) {
  json a = {{"applies-to", std::move(applies_to)}, {"type", {{"type", type}, {"size", size}}}};
  if (!alias.empty()) a["alias"] = alias;
  return a;
}

class UmbWriter {
 public:
  UmbWriter(const SparseMdp& mdp, const std::string& path, Compression compression)
      : mdp_(mdp), archive_(path, compression) {}

  void write() {
    describe_annotations();
    if (mdp_.valuations) fields_ = umb::fields_for(*mdp_.valuations);
    archive_.add("index.json", index().dump(2));
    if (mdp_.type == ModelType::mdp) add_offsets(archive_, "state-to-choices.bin", mdp_.row_group_starts);
    add_offsets(archive_, "choice-to-branches.bin", mdp_.row_starts);
    if (mdp_.type == ModelType::ctmc) {
      add_embedded_chain();
    } else {
      add_values(archive_, "branch-to-probability.bin", mdp_.values);
    }
    add_targets(archive_, mdp_);
    StateSet initial(mdp_.num_states());
    for (std::uint32_t s : mdp_.initial_states) initial.set(s);
    add_bits("state-is-initial.bin", initial);
    if (mdp_.actions) add_actions(archive_, *mdp_.actions);
    add_annotations();
    if (mdp_.valuations) {
      const std::vector<std::uint8_t> packed = umb::pack_valuations(fields_, *mdp_.valuations, mdp_.num_states());
      archive_.add("valuations/states/valuations.bin", packed.data(), packed.size());
    }
    archive_.close();
  }

 private:
  // A CTMC as UMB has it: each state's exit rate (its rates summed, self-loops too),
  // and the embedded chain's probabilities, each rate over its state's exit rate.
  void add_embedded_chain() {
    const std::uint32_t n = mdp_.num_states();
    PodVector<double> exit_rates(n), probabilities(mdp_.num_transitions());
    for (std::uint32_t s = 0; s < n; ++s) {
      double rate = 0.0;
      for (std::uint64_t k = mdp_.row_starts[s]; k < mdp_.row_starts[s + 1]; ++k) rate += mdp_.values[k];
      exit_rates[s] = rate;
      for (std::uint64_t k = mdp_.row_starts[s]; k < mdp_.row_starts[s + 1]; ++k) probabilities[k] = mdp_.values[k] / rate;
    }
    add_array(archive_, "branch-to-probability.bin", probabilities.data(), probabilities.size());
    add_array(archive_, "state-to-exit-rate.bin", exit_rates.data(), exit_rates.size());
  }

  void add_bits(const std::string& name, const StateSet& set) {
    const BitWords words = BitWords::of(set);
    add_array(archive_, name, words.data(), words.size());
  }

  // Ids for the labels (all but "init") and reward structures (an unnamed one is
  // numbered, as PRISM does).
  void describe_annotations() {
    std::set<std::string> taken;
    for (const Label& label : mdp_.labels) {
      if (label.name != "init") ap_ids_.push_back(unique_id(label.name, taken));
    }
    taken.clear();
    for (std::size_t r = 0; r < mdp_.rewards.size(); ++r) {
      const std::string& name = mdp_.rewards[r].name;
      reward_ids_.push_back(name.empty() ? unique_id(std::to_string(r + 1), taken) : unique_id(name, taken));
    }
  }

  json index() const {
    json ts = {{"time", mdp_.type == ModelType::ctmc ? "stochastic" : "discrete"},
               {"#players", has_one_choice_per_state(mdp_.type) ? 0 : 1},
               {"#states", mdp_.num_states()},
               {"#initial-states", mdp_.initial_states.size()},
               {"#choices", mdp_.num_choices()},
               {"#choice-actions", mdp_.actions ? mdp_.actions->names.size() : 0},
               {"#branches", mdp_.num_transitions()},
               {"#branch-actions", 0},
               {"#observations", 0},
               {"branch-probability-type", {{"type", "double"}, {"size", 64}}}};
    if (mdp_.type == ModelType::ctmc) ts["exit-rate-type"] = {{"type", "double"}, {"size", 64}};
    json root = {{"format-version", 1},
                 {"format-revision", 0},
                 {"model-data", json::object()},
                 {"file-data", {{"tool", "mdpvi"}, {"creation-date", static_cast<std::int64_t>(std::time(nullptr))}}},
                 {"transition-system", ts}};
    json aps = json::object(), rewards = json::object();
    std::size_t a = 0;
    // Appended, not assigned by key: the ids are distinct (unique_id), and an
    // ordered_json's operator[] searches the keys before it (100,000 labels: minutes).
    json::object_t& ap_entries = aps.get_ref<json::object_t&>();
    for (const Label& label : mdp_.labels) {
      if (label.name != "init") ap_entries.emplace_back(ap_ids_[a++], annotation(label.name, {"states"}, "bool", 1));
    }
    for (std::size_t r = 0; r < mdp_.rewards.size(); ++r) rewards[reward_ids_[r]] = annotation(mdp_.rewards[r].name, reward_entities(mdp_.rewards[r]), "double", 64);
    if (!aps.empty() || !rewards.empty()) root["annotations"] = json::object();
    if (!aps.empty()) root["annotations"]["aps"] = aps;
    if (!rewards.empty()) root["annotations"]["rewards"] = rewards;
    if (mdp_.valuations) {
      json variables = json::array();
      for (const umb::Field& f : fields_) variables.push_back(umb::field_json(f));
      root["valuations"] = {{"states", {{"unique", true}, {"classes", json::array({{{"variables", variables}}})}}}};
    }
    return root;
  }

  // Where a structure has rewards; one with none says states (all zero).
  static std::vector<std::string> reward_entities(const RewardStructure& r) {
    std::vector<std::string> entities;
    if (!r.state_rewards.empty() || r.choice_rewards.empty()) entities.push_back("states");
    if (!r.choice_rewards.empty()) entities.push_back("choices");
    return entities;
  }

  void add_annotations() {
    std::size_t a = 0;
    for (const Label& label : mdp_.labels) {
      if (label.name != "init") add_bits("annotations/aps/" + ap_ids_[a++] + "/states/values.bin", label.states);
    }
    for (std::size_t r = 0; r < mdp_.rewards.size(); ++r) {
      const RewardStructure& rewards = mdp_.rewards[r];
      const std::string folder = "annotations/rewards/" + reward_ids_[r] + "/";
      if (!rewards.state_rewards.empty()) {
        add_values(archive_, folder + "states/values.bin", rewards.state_rewards);
      } else if (rewards.choice_rewards.empty()) {
        const std::vector<double> zeros(mdp_.num_states(), 0.0);
        add_array(archive_, folder + "states/values.bin", zeros.data(), zeros.size());
      }
      if (!rewards.choice_rewards.empty()) {
        add_values(archive_, folder + "choices/values.bin", rewards.choice_rewards);
      }
    }
  }

  const SparseMdp& mdp_;
  ArchiveWriter archive_;
  std::vector<umb::Field> fields_;
  std::vector<std::string> ap_ids_, reward_ids_;
};

}  // namespace

void write_umb(const SparseMdp& mdp, const std::string& path, Compression compression) {
  UmbWriter(mdp, path, compression).write();
}

}  // namespace mdpvi::io
