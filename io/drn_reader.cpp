#include "io/drn_reader.h"

#include "io/explicit_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

namespace mdpvi::io {

namespace {

// One line, token by token, with 1-based columns for errors. A token ends at a blank,
// and '[', ']', ',' and ':' are tokens of their own (rewards read "[1, 0.5]").
class Tokens {
 public:
  Tokens(const std::string& file, std::size_t line_number, std::string_view line)
      : file_(file), line_number_(line_number), line_(line) {}

  std::string_view peek() {
    const std::size_t saved = pos_;
    std::string_view token = next();
    pos_ = saved;
    return token;
  }
  std::string_view next() {
    while (pos_ < line_.size() && (line_[pos_] == ' ' || line_[pos_] == '\t')) ++pos_;
    column_ = pos_ + 1;
    const std::size_t start = pos_;
    if (pos_ < line_.size() && is_punctuation(line_[pos_])) return line_.substr(pos_++, 1);
    while (pos_ < line_.size() && line_[pos_] != ' ' && line_[pos_] != '\t' && !is_punctuation(line_[pos_])) ++pos_;
    return line_.substr(start, pos_ - start);
  }
  bool at_end() { return peek().empty(); }
  std::size_t column() const { return column_; }  // of the token next() returned last

  template <typename T>
  T expect_number(std::string_view what) {
    const std::string_view token = next();
    T value{};
    auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (token.empty() || error != std::errc() || end != token.data() + token.size()) fail_expected(what, token);
    return value;
  }
  void expect(std::string_view wanted) {
    const std::string_view token = next();
    if (token != wanted) fail_expected("'" + std::string(wanted) + "'", token);
  }
  void expect_end() {
    const std::string_view token = next();
    if (!token.empty()) fail_expected("end of line", token);
  }
  // "[r1, r2, ...]" where the line has it (none: empty).
  std::vector<double> rewards() {
    std::vector<double> values;
    if (peek() != "[") return values;
    next();
    for (;;) {
      values.push_back(expect_number<double>("a reward"));
      if (!std::isfinite(values.back())) fail("the reward " + exact_text(values.back()) + " is not finite");
      const std::string_view separator = next();
      if (separator == "]") return values;
      if (separator != ",") fail_expected("',' or ']'", separator);
    }
  }

  [[noreturn]] void fail(const std::string& message) const { throw ParseError(file_, line_number_, column_, message); }
  [[noreturn]] void fail_expected(std::string_view what, std::string_view found) const {
    fail("expected " + std::string(what) + ", found " + (found.empty() ? "end of line" : "'" + std::string(found) + "'"));
  }

 private:
  static bool is_punctuation(char c) { return c == '[' || c == ']' || c == ',' || c == ':'; }

  const std::string& file_;
  std::size_t line_number_;
  std::string_view line_;
  std::size_t pos_ = 0, column_ = 1;
};

class DrnReader {
 public:
  explicit DrnReader(const TextFile& file) : file_(file) {}

  SparseMdp read() {
    read_header();
    read_model();
    return finish();
  }

 private:
  // The next line with data: blank lines and "//" comments skipped (mdpvi's
  // valuation comments read on the way).
  bool next_line() {
    while (index_ < file_.num_lines()) {
      line_ = file_.line(index_++);
      const std::size_t first = line_.find_first_not_of(" \t");
      if (first == std::string_view::npos) continue;
      if (line_.substr(first, 2) == "//") {
        read_valuation_comment(line_.substr(first));
        continue;
      }
      return true;
    }
    return false;
  }

  // "// Variables: (x,y)" before the first state, "//(1,true)" after each state line
  // (drn_writer.h); other comments are comments.
  void read_valuation_comment(std::string_view comment) {
    constexpr std::string_view kVariables = "// Variables: (";
    if (states_ == 0 && comment.starts_with(kVariables) && !variables_) {
      LineCursor cursor = valuation_cursor();
      cursor.expect_char('/');
      cursor.expect_char('/');
      cursor.expect_identifier("Variables");
      cursor.expect_char(':');
      variables_ = read_variable_list(cursor);
      cursor.expect_end();
      types_.assign(variables_->size(), ValueType::integer);
    } else if (variables_ && comment.starts_with("//(") && states_ > 0 && valued_states_ == states_ - 1) {
      LineCursor cursor = valuation_cursor();
      cursor.expect_char('/');
      cursor.expect_char('/');
      read_valuation_tuple(cursor, variables_->size(), valued_states_ == 0, values_, types_);
      cursor.expect_end();
      ++valued_states_;
    }
  }
  LineCursor valuation_cursor() const { return LineCursor(file_.name(), index_, line_); }
  Tokens tokens() const { return Tokens(file_.name(), index_, line_); }
  [[noreturn]] void fail_at_end(const std::string& message) const {
    throw ParseError(file_.name(), file_.num_lines(), 0, message);
  }

  // The header, up to @model. A section's value is on its own line, except @type's.
  void read_header() {
    bool have_type = false;
    std::optional<std::uint64_t> states, choices;
    while (next_line()) {
      Tokens t = tokens();
      const std::string_view section = t.next();
      if (section == "@model") {
        if (!have_type) t.fail("@model before @type");
        if (!states || !choices) t.fail("@model before @nr_states and @nr_choices");
        t.expect_end();
        num_states_ = *states;
        num_choices_ = *choices;
        return;
      }
      if (section == "@type") {
        t.expect(":");
        read_type(t);
        have_type = true;
      } else if (section == "@value_type") {
        t.expect(":");
        if (t.next() != "double") t.fail("only double values are supported");
        t.expect_end();
      } else if (section == "@parameters") {
        t.expect_end();
        refuse_parameters();
      } else if (section == "@reward_models") {
        t.expect_end();
        read_reward_names();
      } else if (section == "@nr_states" || section == "@nr_choices") {
        t.expect_end();
        (section == "@nr_states" ? states : choices) = read_count(section);
      } else {
        t.fail_expected("@type, @parameters, @reward_models, @nr_states, @nr_choices or @model", section);
      }
    }
    fail_at_end("no @model section");
  }

  void read_type(Tokens& t) {
    const std::string_view type = t.next();
    if (type == "MDP" || type == "Mdp") {
      mdp_.type = ModelType::mdp;
    } else if (type == "DTMC" || type == "Dtmc") {
      mdp_.type = ModelType::dtmc;
    } else if (type == "CTMC" || type == "Ctmc") {
      mdp_.type = ModelType::ctmc;  // its transitions carry rates
    } else {
      t.fail_expected("MDP, DTMC or CTMC", type);
    }
    t.expect_end();
  }

  // A section's value: the next line, unless that line is the next section.
  std::optional<std::string_view> section_value() {
    const std::size_t saved = index_;
    if (next_line() && line_.find_first_not_of(" \t") != std::string_view::npos &&
        line_[line_.find_first_not_of(" \t")] != '@') {
      return line_;
    }
    index_ = saved;
    return std::nullopt;
  }

  void refuse_parameters() {
    if (section_value()) tokens().fail("parametric models are not supported (parameters: " + std::string(line_) + ")");
  }

  void read_reward_names() {
    if (!section_value()) return;
    Tokens t = tokens();
    for (std::string_view name = t.next(); !name.empty(); name = t.next()) reward_names_.emplace_back(name);
  }

  // A state's or an action's rewards, one per structure. The first state line says
  // how many structures there are (PRISM writes an unnamed one's name as nothing).
  std::vector<double> line_rewards(Tokens& t) {
    std::vector<double> values = t.rewards();
    if (!reward_count_) start_reward_structures(values.size(), t);
    if (values.empty()) values.assign(*reward_count_, 0.0);
    if (values.size() != *reward_count_) {
      t.fail("expected " + std::to_string(*reward_count_) + " rewards, found " + std::to_string(values.size()));
    }
    return values;
  }

  void start_reward_structures(std::size_t count, const Tokens& t) {
    if (!reward_names_.empty() && reward_names_.size() != count) {
      t.fail(std::to_string(count) + " rewards, but @reward_models names " + std::to_string(reward_names_.size()));
    }
    reward_count_ = count;
    for (std::size_t r = 0; r < count; ++r) {
      RewardStructure structure{reward_names_.empty() ? std::string() : reward_names_[r], {}, {}};
      structure.state_rewards.plain().resize(num_states_);
      structure.choice_rewards.plain().reserve(num_choices_);
      mdp_.rewards.push_back(std::move(structure));
    }
  }

  std::uint64_t read_count(std::string_view section) {
    if (!section_value()) fail_at_end("no value after " + std::string(section));
    Tokens t = tokens();
    const auto count = t.expect_number<std::uint64_t>("a count");
    t.expect_end();
    return count;
  }

  void read_model() {
    if (num_states_ >= std::numeric_limits<std::uint32_t>::max()) fail_at_end("more states than mdpvi supports");
    // A state and a choice take a line each: no allocation for more than the file holds.
    if (num_states_ > file_.num_lines() || num_choices_ > file_.num_lines()) {
      fail_at_end("@nr_states " + std::to_string(num_states_) + " and @nr_choices " + std::to_string(num_choices_) +
                  " cannot fit in a file of " + std::to_string(file_.num_lines()) + " lines");
    }
    mdp_.row_group_starts.push_back(0);
    mdp_.row_starts.push_back(0);
    while (next_line()) {
      Tokens t = tokens();
      const std::string_view keyword = t.peek();
      if (keyword == "state") {
        read_state(t);
      } else if (keyword == "action") {
        read_action(t);
      } else {
        read_transition(t);
      }
    }
  }

  void read_state(Tokens& t) {
    close_action();
    t.next();
    const auto id = t.expect_number<std::uint64_t>("a state number");
    if (id != states_) t.fail("expected state " + std::to_string(states_) + ", found state " + std::to_string(id));
    if (states_ >= num_states_) t.fail("more states than @nr_states " + std::to_string(num_states_));
    if (states_ > 0) close_state();
    const std::vector<double> rewards = line_rewards(t);
    for (std::size_t r = 0; r < rewards.size(); ++r) mdp_.rewards[r].state_rewards.plain()[states_] = rewards[r];
    for (std::string_view label = t.next(); !label.empty(); label = t.next()) add_label(label, t);
    ++states_;
  }

  void read_action(Tokens& t) {
    if (states_ == 0) t.fail("an action before the first state");
    close_action();
    t.next();
    const std::string_view name = t.next();
    if (name.empty() || name == "[") t.fail_expected("an action name", name);
    if (mdp_.num_choices() >= num_choices_) t.fail("more choices than @nr_choices " + std::to_string(num_choices_));
    const std::vector<double> rewards = line_rewards(t);
    t.expect_end();
    for (std::size_t r = 0; r < rewards.size(); ++r) mdp_.rewards[r].choice_rewards.push_back(rewards[r]);
    add_action_name(name);
    open_action_line_ = index_;
    sum_ = 0.0;
    in_action_ = true;
  }

  void read_transition(Tokens& t) {
    if (!in_action_) t.fail_expected("'state' or 'action'", t.peek());
    const auto target = t.expect_number<std::uint64_t>("a target state, 'state' or 'action'");
    if (target >= num_states_) t.fail("target " + std::to_string(target) + " is not a state (@nr_states " + std::to_string(num_states_) + ")");
    t.expect(":");
    const bool rate = mdp_.type == ModelType::ctmc;
    const double probability = t.expect_number<double>(rate ? "a rate" : "a probability");
    if (rate && !(probability > 0.0 && std::isfinite(probability))) {
      t.fail("rate " + exact_text(probability) + " is not a finite number > 0");
    }
    if (!rate && !(probability > 0.0 && probability <= 1.0)) t.fail("probability " + exact_text(probability) + " outside (0,1]");
    t.expect_end();
    mdp_.columns.push_back(static_cast<std::uint32_t>(target));
    mdp_.values.push_back(probability);
    sum_ += probability;
  }

  // The choice's action, for the scheduler export; "__NOLABEL__" (PRISM's) and
  // Storm's numbers for unnamed actions stand for no action.
  void add_action_name(std::string_view name) {
    if (!mdp_.actions) mdp_.actions.emplace().names.push_back("");
    const bool unnamed = name == "__NOLABEL__" || std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
    std::uint32_t index = 0;
    if (!unnamed) {
      auto [at, added] = action_indices_.try_emplace(std::string(name), static_cast<std::uint32_t>(mdp_.actions->names.size()));
      if (added) mdp_.actions->names.push_back(at->first);
      index = at->second;
    }
    mdp_.actions->of_choice.push_back(index);
  }

  // The action being read ends: its distribution must sum to one.
  void close_action() {
    if (!in_action_) return;
    in_action_ = false;
    if (mdp_.columns.size() == mdp_.row_starts.back()) {
      throw ParseError(file_.name(), open_action_line_, 0, "an action without transitions");
    }
    if (mdp_.type != ModelType::ctmc && std::abs(sum_ - 1.0) > kSumTolerance) {
      throw ParseError(file_.name(), open_action_line_, 0,
                       "probabilities of the action sum to " + exact_text(sum_) + ", not 1");
    }
    mdp_.row_starts.push_back(mdp_.columns.size());
  }

  // The state being read ends: it needs a choice (a DTMC exactly one).
  void close_state() {
    const std::uint64_t rows = mdp_.row_starts.size() - 1;
    const std::uint64_t choices = rows - mdp_.row_group_starts.back();
    if (choices == 0) {
      throw ParseError(file_.name(), index_, 0, "state " + std::to_string(states_ - 1) + " has no action");
    }
    if (has_one_choice_per_state(mdp_.type) && choices != 1) {
      throw ParseError(file_.name(), index_, 0, "state " + std::to_string(states_ - 1) + " of a " + to_string(mdp_.type) + " has " +
                                                     std::to_string(choices) + " actions");
    }
    mdp_.row_group_starts.push_back(rows);
  }

  void add_label(std::string_view name, const Tokens& t) {
    if (name == "[" || name == "]" || name == "," || name == ":") t.fail_expected("a label", name);
    Label* label = nullptr;
    for (Label& l : mdp_.labels) {
      if (l.name == name) label = &l;
    }
    if (!label) {
      mdp_.labels.push_back({std::string(name), StateSet(num_states_)});
      label = &mdp_.labels.back();
    }
    label->states.set(states_);
  }

  SparseMdp finish() {
    close_action();
    if (states_ != num_states_) {
      fail_at_end(std::to_string(states_) + " states, but @nr_states says " + std::to_string(num_states_));
    }
    if (states_ > 0) close_state();
    if (mdp_.num_choices() != num_choices_) {
      fail_at_end(std::to_string(mdp_.num_choices()) + " choices, but @nr_choices says " + std::to_string(num_choices_));
    }
    for (const Label& l : mdp_.labels) {
      if (l.name != "init") continue;
      for (auto s = l.states.find_first(); s != StateSet::npos; s = l.states.find_next(s)) {
        mdp_.initial_states.push_back(static_cast<std::uint32_t>(s));
      }
    }
    if (mdp_.initial_states.empty()) fail_at_end("no state is labelled init");
    if (variables_) {
      if (valued_states_ != num_states_) {
        fail_at_end("// Variables: declares valuations, but state " + std::to_string(valued_states_) + " has no //(...) line");
      }
      mdp_.valuations = pack_valuations(std::move(*variables_), std::move(types_), values_, num_states_);
    }
    return std::move(mdp_);
  }

  const TextFile& file_;
  std::size_t index_ = 0;  // lines read; the current line's 1-based number
  std::string_view line_;
  std::uint64_t num_states_ = 0, num_choices_ = 0, states_ = 0;
  std::vector<std::string> reward_names_;
  std::optional<std::size_t> reward_count_;
  bool in_action_ = false;
  std::size_t open_action_line_ = 0;
  double sum_ = 0.0;
  std::map<std::string, std::uint32_t> action_indices_;
  std::optional<std::vector<std::string>> variables_;  // from "// Variables: (...)"
  std::vector<ValueType> types_;
  std::vector<std::int32_t> values_;  // row-major, per state from its "//(...)" line
  std::uint64_t valued_states_ = 0;
  SparseMdp mdp_;
};

}  // namespace

SparseMdp read_drn(const TextFile& file) { return DrnReader(file).read(); }

SparseMdp read_drn_model(const std::string& path) { return read_drn(TextFile::load(path)); }

}  // namespace mdpvi::io
