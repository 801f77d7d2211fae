#include "io/explicit_reader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>

namespace mdpvi::io {

namespace {

// The data lines of a file: comments and blank lines skipped, 1-based numbers kept.
class DataLines {
 public:
  explicit DataLines(const TextFile& file) : file_(file) {}

  bool next() {
    while (index_ < file_.num_lines()) {
      std::string_view line = file_.line(index_++);
      if (!is_comment_or_blank(line)) {
        line_ = line;
        return true;
      }
    }
    return false;
  }
  LineCursor cursor() const { return LineCursor(file_.name(), index_, line_); }
  std::size_t line_number() const { return index_; }
  ParseError error(const std::string& message) const {
    return ParseError(file_.name(), index_, 0, message);
  }
  ParseError file_error(const std::string& message) const {
    return ParseError(file_.name(), 0, 0, message);
  }

 private:
  const TextFile& file_;
  std::size_t index_ = 0;
  std::string_view line_;
};

std::size_t count_tokens(LineCursor cursor) {
  std::size_t n = 0;
  while (!cursor.next_token().empty()) ++n;
  return n;
}

std::uint32_t expect_index(LineCursor& cursor, std::uint64_t bound, std::string_view what) {
  std::size_t column = cursor.column();
  std::uint64_t value = cursor.expect_unsigned(what);
  if (value >= bound) {
    cursor.fail(column, std::string(what) + " " + std::to_string(value) + " out of range (expected < " +
                            std::to_string(bound) + ")");
  }
  return static_cast<std::uint32_t>(value);
}

// Builds the row-grouped CSR from entries that arrive sorted by (state, choice) and
// checks, choice by choice, what PRISM guarantees in its own exports.
class TransitionBuilder {
 public:
  TransitionBuilder(SparseMdp& mdp, std::uint32_t states, std::uint64_t nnz_hint)
      : mdp_(mdp), last_row_of_target_(states, kNoRow), rates_(mdp.type == ModelType::ctmc) {
    mdp_.row_group_starts.clear();
    mdp_.row_starts = PackedOffsets{0};
    mdp_.columns.clear();
    mdp_.values = CompactValues();
    mdp_.columns.reserve(nnz_hint);
    mdp_.values.plain().reserve(nnz_hint);
  }

  void add(LineCursor& cursor, std::uint32_t state, std::uint64_t choice, std::size_t choice_column,
           std::uint32_t target, std::size_t target_column, double probability,
           std::size_t probability_column) {
    if (!started_ || state != state_ || choice != choice_) open_choice(cursor, state, choice, choice_column);
    if (rates_ && !(probability > 0.0 && std::isfinite(probability))) {
      cursor.fail(probability_column, "rate " + exact_text(probability) + " is not a finite number > 0");
    }
    if (!rates_ && !(probability > 0.0 && probability <= 1.0)) {
      cursor.fail(probability_column, "probability " + exact_text(probability) + " outside (0,1]");
    }
    std::uint64_t row = mdp_.row_starts.size() - 1;
    if (last_row_of_target_[target] == row) {
      cursor.fail(target_column, "duplicate transition to state " + std::to_string(target) +
                                     " in choice " + std::to_string(choice) + " of state " +
                                     std::to_string(state));
    }
    last_row_of_target_[target] = row;
    mdp_.columns.push_back(target);
    mdp_.values.push_back(probability);
    sum_ += probability;
  }

  // The entry's action (PRISM writes a choice's action on each of its entries): every
  // entry of an MDP's choice names the same; a DTMC's state keeps the action its
  // entries share, none where they differ.
  void add_action(LineCursor& cursor, std::string_view action, std::size_t column) {
    const std::uint64_t row = mdp_.row_starts.size() - 1;
    const bool first_entry = mdp_.columns.size() - 1 == mdp_.row_starts.back();
    if (!action.empty() && !mdp_.actions) {
      mdp_.actions.emplace().names.push_back("");
      mdp_.actions->of_choice.assign(first_entry ? row : row + 1, 0);  // the choices before had none
    }
    if (!mdp_.actions) return;
    auto [at, added] = action_indices_.try_emplace(std::string(action), static_cast<std::uint32_t>(mdp_.actions->names.size()));
    if (added) mdp_.actions->names.push_back(at->first);
    const std::uint32_t index = action.empty() ? 0 : at->second;
    if (first_entry) {
      mdp_.actions->of_choice.push_back(index);
    } else if (mdp_.actions->of_choice[row] != index) {
      if (mdp_.type == ModelType::mdp) {
        cursor.fail(column, "action '" + std::string(action) + "' differs from the action '" +
                                mdp_.actions->names[mdp_.actions->of_choice[row]] + "' of the choice's first entry");
      }
      mdp_.actions->of_choice[row] = 0;
    }
  }

  // Closes the last choice; every state must have had one.
  void finish(const DataLines& lines, std::uint32_t states) {
    if (started_) close_choice();
    std::uint32_t seen = started_ ? state_ + 1 : 0;
    if (seen != states) {
      throw lines.file_error("state " + std::to_string(seen) + " has no transitions (expected " +
                             std::to_string(states) + " states)");
    }
    mdp_.row_group_starts.push_back(mdp_.row_starts.size() - 1);
  }

 private:
  static constexpr std::uint64_t kNoRow = std::numeric_limits<std::uint64_t>::max();

  void open_choice(LineCursor& cursor, std::uint32_t state, std::uint64_t choice, std::size_t column) {
    std::uint32_t expected_state = started_ ? state_ : 0;
    std::uint64_t expected_choice = started_ ? choice_ + 1 : 0;
    bool next_choice = started_ && state == state_ && choice == expected_choice;
    bool next_state = (started_ ? state == state_ + 1 : state == 0) && choice == 0;
    if (!next_choice && !next_state) {
      if (state == expected_state && started_) {
        cursor.fail(column, "expected choice " + std::to_string(expected_choice) + " of state " +
                                std::to_string(state) + " (choices numbered from 0 without gaps, "
                                "lines sorted), found choice " + std::to_string(choice));
      }
      std::uint32_t next = started_ ? state_ + 1 : 0;
      cursor.fail(1, "expected the transitions of state " + std::to_string(next) +
                         " (states in order, each with at least one choice), found state " +
                         std::to_string(state) + " choice " + std::to_string(choice));
    }
    if (started_) close_choice();
    if (next_state) mdp_.row_group_starts.push_back(mdp_.row_starts.size() - 1);
    started_ = true;
    state_ = state;
    choice_ = choice;
    choice_line_.emplace(cursor);
    sum_ = 0.0;
  }

  void close_choice() {
    if (!rates_ && std::abs(sum_ - 1.0) > kSumTolerance) {
      choice_line_->fail(0, "probabilities of choice " + std::to_string(choice_) + " of state " +
                                std::to_string(state_) + " sum to " + exact_text(sum_) + ", expected 1");
    }
    mdp_.row_starts.push_back(mdp_.columns.size());
  }

  SparseMdp& mdp_;
  std::vector<std::uint64_t> last_row_of_target_;
  bool started_ = false;
  std::uint32_t state_ = 0;
  std::uint64_t choice_ = 0;
  std::optional<LineCursor> choice_line_;  // where the open choice started, for its sum error
  double sum_ = 0.0;
  const bool rates_;  // a CTMC's entries: rates, not a distribution
  std::map<std::string, std::uint32_t> action_indices_{{"", 0}};
};

}  // namespace

void read_transitions(const TextFile& tra, SparseMdp& mdp, bool ctmc) {
  DataLines lines(tra);
  if (!lines.next()) throw lines.file_error("expected a header line 'states choices transitions', found end of file");
  std::size_t header_line = lines.line_number();
  LineCursor header = lines.cursor();
  std::size_t header_tokens = count_tokens(header);
  if (header_tokens != 2 && header_tokens != 3) {
    header.fail(1, "expected a header 'states choices transitions' (MDP) or 'states transitions' (DTMC)");
  }
  if (ctmc && header_tokens != 2) header.fail(1, "expected a CTMC's header 'states transitions'");
  mdp.type = header_tokens == 3 ? ModelType::mdp : ctmc ? ModelType::ctmc : ModelType::dtmc;
  std::uint64_t states = header.expect_unsigned("the number of states");
  if (states == 0 || states > std::numeric_limits<std::uint32_t>::max()) {
    header.fail(1, "the number of states must be between 1 and 2^32-1, found " + std::to_string(states));
  }
  // Each state takes a line at least: a header may not make the reader allocate for
  // more states than the file can hold (a 23-byte file declared 2,000,000,000).
  if (states > tra.num_lines()) {
    header.fail(1, "the header declares " + std::to_string(states) + " states, but the file has " +
                       std::to_string(tra.num_lines()) + " lines");
  }
  std::uint64_t choices = mdp.type == ModelType::mdp ? header.expect_unsigned("the number of choices") : states;
  std::uint64_t transitions = header.expect_unsigned("the number of transitions");

  // Trust the header only as far as the file's size: a wrong header must give an
  // error, not an allocation failure.
  std::uint64_t nnz_hint = std::min<std::uint64_t>(transitions, tra.num_lines());
  TransitionBuilder builder(mdp, static_cast<std::uint32_t>(states), nnz_hint);
  while (lines.next()) {
    LineCursor cursor = lines.cursor();
    std::uint32_t state = expect_index(cursor, states, "source state");
    std::size_t choice_column = cursor.column();
    std::uint64_t choice = mdp.type == ModelType::mdp ? cursor.expect_unsigned("choice index") : 0;
    std::size_t target_column = cursor.column();
    std::uint32_t target = expect_index(cursor, states, "target state");
    std::size_t probability_column = cursor.column();
    double probability = cursor.expect_number("a probability");
    const std::size_t action_column = cursor.column();
    const std::string_view action = cursor.at_end() ? std::string_view() : cursor.expect_identifier("an action name or end of line");
    cursor.expect_end();
    builder.add(cursor, state, choice, choice_column, target, target_column, probability, probability_column);
    builder.add_action(cursor, action, action_column);
  }
  builder.finish(lines, static_cast<std::uint32_t>(states));

  auto check_count = [&](std::uint64_t declared, std::uint64_t found, const char* what) {
    if (declared != found) {
      throw ParseError(tra.name(), header_line, 0,
                       std::string("header declares ") + std::to_string(declared) + " " + what +
                           ", found " + std::to_string(found));
    }
  };
  check_count(choices, mdp.num_choices(), "choices");
  check_count(transitions, mdp.num_transitions(), "transitions");
}

void read_labels(const TextFile& lab, SparseMdp& mdp) {
  const std::uint32_t states = mdp.num_states();
  DataLines lines(lab);
  if (!lines.next()) throw lines.file_error("expected the label declarations '0=\"init\" ...', found end of file");
  mdp.labels.clear();
  {
    LineCursor cursor = lines.cursor();
    while (!cursor.at_end()) {
      std::size_t column = cursor.column();
      std::uint64_t index = cursor.expect_unsigned("a label index");
      if (index != mdp.labels.size()) {
        cursor.fail(column, "expected label index " + std::to_string(mdp.labels.size()) + ", found " +
                                std::to_string(index));
      }
      cursor.expect_char('=');
      mdp.labels.push_back(Label{cursor.expect_quoted("a quoted label name"), StateSet(states)});
    }
  }
  while (lines.next()) {
    LineCursor cursor = lines.cursor();
    std::uint32_t state = expect_index(cursor, states, "state");
    cursor.expect_char(':');
    while (!cursor.at_end()) {
      std::uint32_t label = expect_index(cursor, mdp.labels.size(), "label index");
      mdp.labels[label].states.set(state);
    }
  }
  mdp.initial_states.clear();
  if (const Label* init = mdp.find_label("init")) {
    for (auto s = init->states.find_first(); s != StateSet::npos; s = init->states.find_next(s)) {
      mdp.initial_states.push_back(static_cast<std::uint32_t>(s));
    }
  }
  if (mdp.initial_states.empty()) {
    throw lines.file_error("no initial state: no state carries the label \"init\"");
  }
}

std::vector<std::string> read_variable_list(LineCursor& cursor) {
  std::vector<std::string> variables;
  cursor.expect_char('(');
  do {
    variables.emplace_back(cursor.expect_identifier("a variable name"));
  } while (cursor.peek() == ',' && (cursor.expect_char(','), true));
  cursor.expect_char(')');
  return variables;
}

void read_valuation_tuple(LineCursor& cursor, std::size_t width, bool first_state, std::vector<std::int32_t>& values,
                          std::vector<ValueType>& types) {
  cursor.expect_char('(');
  for (std::size_t v = 0; v < width; ++v) {
    if (v > 0) cursor.expect_char(',');
    std::size_t value_column = cursor.column();
    if (std::isalpha(static_cast<unsigned char>(cursor.peek()))) {
      std::string_view word = cursor.expect_identifier("a value");
      if (word != "true" && word != "false") cursor.fail_expected("an integer, true or false", value_column);
      values.push_back(word == "true" ? 1 : 0);
      if (first_state) types[v] = ValueType::boolean;
    } else {
      std::int64_t value = cursor.expect_integer("an integer, true or false");
      if (value < std::numeric_limits<std::int32_t>::min() || value > std::numeric_limits<std::int32_t>::max()) {
        cursor.fail(value_column, "value " + std::to_string(value) + " does not fit in 32 bits");
      }
      values.push_back(static_cast<std::int32_t>(value));
    }
  }
  cursor.expect_char(')');
}

StateValuations read_state_valuations(const TextFile& sta, std::uint32_t num_states) {
  DataLines lines(sta);
  if (!lines.next()) throw lines.file_error("expected the variable list '(x,y,...)', found end of file");
  std::vector<std::string> variables;
  {
    LineCursor cursor = lines.cursor();
    variables = read_variable_list(cursor);
    cursor.expect_end();
  }
  const std::size_t width = variables.size();
  std::vector<ValueType> types(width, ValueType::integer);  // boolean when the first state says true/false
  std::vector<std::int32_t> values;  // row-major, packed at the end
  values.reserve(static_cast<std::size_t>(num_states) * width);
  std::uint32_t next_state = 0;
  while (lines.next()) {
    LineCursor cursor = lines.cursor();
    std::size_t column = cursor.column();
    std::uint32_t state = expect_index(cursor, num_states, "state");
    if (state != next_state) {
      cursor.fail(column, "expected state " + std::to_string(next_state) + ", found " + std::to_string(state));
    }
    cursor.expect_char(':');
    read_valuation_tuple(cursor, width, next_state == 0, values, types);
    cursor.expect_end();
    ++next_state;
  }
  if (next_state != num_states) {
    throw lines.file_error("expected " + std::to_string(num_states) + " states, found " + std::to_string(next_state));
  }
  return pack_valuations(std::move(variables), std::move(types), values, num_states);
}

namespace {

// "# Reward structure "name"" is how PRISM names the structure in both files.
std::string reward_structure_name(const TextFile& file) {
  constexpr std::string_view kPrefix = "# Reward structure ";
  for (std::size_t i = 0; i < file.num_lines(); ++i) {
    std::string_view line = file.line(i);
    if (!is_comment_or_blank(line)) break;
    if (line.starts_with(kPrefix)) {
      std::string_view rest = line.substr(kPrefix.size());
      if (rest.size() >= 2 && rest.front() == '"' && rest.back() == '"') return std::string(rest.substr(1, rest.size() - 2));
    }
  }
  return {};
}

double expect_reward(LineCursor& cursor) {
  std::size_t column = cursor.column();
  double reward = cursor.expect_number("a reward");
  if (!std::isfinite(reward)) cursor.fail(column, "reward must be finite");
  return reward;
}

void expect_header_states(LineCursor& cursor, std::uint32_t states) {
  std::size_t column = cursor.column();
  std::uint64_t declared = cursor.expect_unsigned("the number of states");
  if (declared != states) {
    cursor.fail(column, "header declares " + std::to_string(declared) + " states, the model has " +
                            std::to_string(states));
  }
}

PodVector<double> read_state_rewards(const TextFile& srew, std::uint32_t states) {
  DataLines lines(srew);
  if (!lines.next()) throw lines.file_error("expected a header 'states entries', found end of file");
  LineCursor header = lines.cursor();
  expect_header_states(header, states);
  std::uint64_t declared = header.expect_unsigned("the number of reward entries");
  header.expect_end();
  std::size_t header_line = lines.line_number();
  PodVector<double> rewards(states, 0.0);
  StateSet seen(states);
  std::uint64_t entries = 0;
  while (lines.next()) {
    LineCursor cursor = lines.cursor();
    std::size_t column = cursor.column();
    std::uint32_t state = expect_index(cursor, states, "state");
    if (seen.test(state)) cursor.fail(column, "second reward for state " + std::to_string(state));
    seen.set(state);
    rewards[state] = expect_reward(cursor);
    cursor.expect_end();
    ++entries;
  }
  if (entries != declared) {
    throw ParseError(srew.name(), header_line, 0,
                     "header declares " + std::to_string(declared) + " entries, found " + std::to_string(entries));
  }
  return rewards;
}

// Transition rewards become the choice's expected reward: sum of P(s,c,t) * r(s,c,t).
// Where every entry of a choice carries one reward r (PRISM's habit for an action's
// reward), the choice's reward is r itself, not a sum that may round differently:
// so a model written back gives the same file.
PodVector<double> read_choice_rewards(const TextFile& trew, const SparseMdp& mdp) {
  const std::uint32_t states = mdp.num_states();
  DataLines lines(trew);
  if (!lines.next()) throw lines.file_error("expected a header line, found end of file");
  LineCursor header = lines.cursor();
  std::size_t header_tokens = count_tokens(header);
  bool is_mdp = mdp.type == ModelType::mdp;
  if (header_tokens != (is_mdp ? 3u : 2u)) {
    header.fail(1, is_mdp ? "expected a header 'states choices entries' (MDP)" : "expected a header 'states entries' (DTMC)");
  }
  expect_header_states(header, states);
  if (is_mdp) {
    std::size_t column = header.column();
    std::uint64_t choices = header.expect_unsigned("the number of choices");
    if (choices != mdp.num_choices()) {
      header.fail(column, "header declares " + std::to_string(choices) + " choices, the model has " +
                              std::to_string(mdp.num_choices()));
    }
  }
  std::uint64_t declared = header.expect_unsigned("the number of reward entries");
  std::size_t header_line = lines.line_number();
  PodVector<double> rewards(mdp.num_choices(), 0.0);
  PodVector<double> shared(mdp.num_choices(), 0.0);  // the reward every entry so far carried; NaN: they differ
  std::vector<std::uint32_t> entries_of_row(mdp.num_choices(), 0);
  std::uint64_t entries = 0;
  while (lines.next()) {
    LineCursor cursor = lines.cursor();
    std::uint32_t state = expect_index(cursor, states, "state");
    std::uint64_t choices_of_state = mdp.row_group_starts[state + 1] - mdp.row_group_starts[state];
    std::uint64_t choice = is_mdp ? expect_index(cursor, choices_of_state, "choice index") : 0;
    std::size_t target_column = cursor.column();
    std::uint32_t target = expect_index(cursor, states, "target state");
    double reward = expect_reward(cursor);
    cursor.expect_end();
    std::uint64_t row = mdp.row_group_starts[state] + choice;
    bool found = false;
    for (std::uint64_t k = mdp.row_starts[row]; k < mdp.row_starts[row + 1]; ++k) {
      if (mdp.columns[k] == target) {
        rewards[row] += mdp.values[k] * reward;
        found = true;
        break;
      }
    }
    if (!found) cursor.fail(target_column, "no transition to state " + std::to_string(target) + " in this choice");
    shared[row] = entries_of_row[row]++ == 0 || shared[row] == reward ? reward : std::nan("");
    ++entries;
  }
  for (std::uint64_t row = 0; row < mdp.num_choices(); ++row) {
    if (entries_of_row[row] == mdp.row_starts[row + 1] - mdp.row_starts[row] && !std::isnan(shared[row])) rewards[row] = shared[row];
  }
  if (entries != declared) {
    throw ParseError(trew.name(), header_line, 0,
                     "header declares " + std::to_string(declared) + " entries, found " + std::to_string(entries));
  }
  return rewards;
}

std::optional<TextFile> load_if_present(const std::string& path) {
  if (!std::filesystem::exists(path)) return std::nullopt;
  return TextFile::load(path);
}

}  // namespace

RewardStructure read_reward_structure(const std::optional<TextFile>& srew, const std::optional<TextFile>& trew,
                                      const SparseMdp& mdp) {
  RewardStructure structure;
  if (srew) {
    structure.name = reward_structure_name(*srew);
    structure.state_rewards = read_state_rewards(*srew, mdp.num_states());
  }
  if (trew) {
    if (structure.name.empty()) structure.name = reward_structure_name(*trew);
    structure.choice_rewards = read_choice_rewards(*trew, mdp);
  }
  return structure;
}

SparseMdp read_explicit_model(const std::string& base, bool ctmc) {
  SparseMdp mdp;
  read_transitions(TextFile::load(base + ".tra"), mdp, ctmc);
  read_labels(TextFile::load(base + ".lab"), mdp);
  if (auto sta = load_if_present(base + ".sta")) mdp.valuations = read_state_valuations(*sta, mdp.num_states());

  auto add_structure = [&](const std::string& stem) {
    auto srew = load_if_present(stem + ".srew");
    auto trew = load_if_present(stem + ".trew");
    if (!srew && !trew) return false;
    mdp.rewards.push_back(read_reward_structure(srew, trew, mdp));
    return true;
  };
  if (!add_structure(base)) {
    for (int i = 1; add_structure(base + std::to_string(i)); ++i) {
    }
  }
  check_invariants(mdp);
  return mdp;
}

}  // namespace mdpvi::io
