#include "io/hoa_reader.h"

#include "io/parse_error.h"

#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mdpvi::io {

namespace {

struct HoaToken {
  enum class Kind { header, identifier, alias, string, integer, symbol, body, end, abort, end_of_input };
  Kind kind = Kind::end_of_input;
  std::string text;  // header: without its ':'; string: without the quotes
  std::size_t line = 0, column = 0;

  bool is(char symbol) const { return kind == Kind::symbol && text.size() == 1 && text[0] == symbol; }
  std::string describe() const {
    switch (kind) {
      case Kind::header: return "\"" + text + ":\"";
      case Kind::string: return "\"\\\"" + text + "\\\"\"";
      case Kind::end_of_input: return "the end of the file";
      default: return "\"" + text + "\"";
    }
  }
};

bool word_character(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

// The HOA format's tokens (its grammar, section "Lexical conventions"), /* comments */ skipped.
class HoaLexer {
 public:
  explicit HoaLexer(const TextFile& file) : file_(file) {}

  std::vector<HoaToken> tokens() {
    std::vector<HoaToken> out;
    for (line_ = 0; line_ < file_.num_lines(); ++line_) {
      const std::string_view text = file_.line(line_);
      for (column_ = 0; column_ < text.size();) {
        if (in_comment_) {
          skip_comment(text);
          continue;
        }
        const char c = text[column_];
        if (std::isspace(static_cast<unsigned char>(c))) {
          ++column_;
        } else if (text.substr(column_, 2) == "/*") {
          in_comment_ = true;
          column_ += 2;
        } else {
          out.push_back(token(text));
        }
      }
    }
    if (in_comment_) throw ParseError(file_.name(), line_, 0, "expected \"*/\" closing a comment, found the end of the file");
    out.push_back({HoaToken::Kind::end_of_input, "", file_.num_lines(), 0});
    return out;
  }

 private:
  void skip_comment(std::string_view text) {
    const std::size_t end = text.find("*/", column_);
    if (end == std::string_view::npos) {
      column_ = text.size();
    } else {
      column_ = end + 2;
      in_comment_ = false;
    }
  }

  HoaToken token(std::string_view text) {
    HoaToken t;
    t.line = line_ + 1;
    t.column = column_ + 1;
    const char c = text[column_];
    if (c == '"') return string_token(text, t);
    if (text.substr(column_, 2) == "--") return section_token(text, t);
    if (std::isdigit(static_cast<unsigned char>(c))) {
      t.kind = HoaToken::Kind::integer;
      while (column_ < text.size() && std::isdigit(static_cast<unsigned char>(text[column_]))) t.text += text[column_++];
      return t;
    }
    if (c == '@' || std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      t.kind = c == '@' ? HoaToken::Kind::alias : HoaToken::Kind::identifier;
      if (c == '@') ++column_;
      while (column_ < text.size() && word_character(text[column_])) t.text += text[column_++];
      if (t.kind == HoaToken::Kind::identifier && column_ < text.size() && text[column_] == ':') {
        t.kind = HoaToken::Kind::header;
        ++column_;
      }
      return t;
    }
    if (std::string_view("!&|()[]{}").find(c) == std::string_view::npos) {
      throw ParseError(file_.name(), t.line, t.column, std::string("expected a token of the HOA format, found \"") + c + "\"");
    }
    t.kind = HoaToken::Kind::symbol;
    t.text = std::string(1, c);
    ++column_;
    return t;
  }

  HoaToken string_token(std::string_view text, HoaToken t) {
    t.kind = HoaToken::Kind::string;
    for (++column_; column_ < text.size() && text[column_] != '"'; ++column_) {
      if (text[column_] == '\\' && column_ + 1 < text.size()) ++column_;
      t.text += text[column_];
    }
    if (column_ == text.size()) throw ParseError(file_.name(), t.line, t.column, "expected a closing '\"', found the end of the line");
    ++column_;
    return t;
  }

  HoaToken section_token(std::string_view text, HoaToken t) {
    for (const auto& [word, kind] : {std::pair{std::string_view("--BODY--"), HoaToken::Kind::body},
                                     std::pair{std::string_view("--END--"), HoaToken::Kind::end},
                                     std::pair{std::string_view("--ABORT--"), HoaToken::Kind::abort}}) {
      if (text.substr(column_, word.size()) == word) {
        t.kind = kind;
        t.text = std::string(word);
        column_ += word.size();
        return t;
      }
    }
    throw ParseError(file_.name(), t.line, t.column, "expected --BODY--, --END-- or --ABORT--, found \"--\"");
  }

  const TextFile& file_;
  std::size_t line_ = 0, column_ = 0;
  bool in_comment_ = false;
};

using Kind = HoaToken::Kind;
using Node = HoaAutomaton::Node;

class HoaParser {
 public:
  explicit HoaParser(const TextFile& file) : file_(file.name()), tokens_(HoaLexer(file).tokens()) {}

  HoaAutomaton automaton() {
    a_.source = file_;
    const HoaToken& first = peek();
    if (first.kind != Kind::header || first.text != "HOA") fail_expected("\"HOA:\" (the format's first header)", first);
    next();
    expect(Kind::identifier, "the format's version");
    headers();
    expect(Kind::body, "--BODY--");
    body();
    if (peek().kind == Kind::abort) fail(peek(), "the automaton's writer aborted it (--ABORT--)");
    expect(Kind::end, "--END--");
    check_complete_header();
    return std::move(a_);
  }

 private:
  // The header items, until --BODY--.
  void headers() {
    while (peek().kind == Kind::header) {
      const HoaToken& h = next();
      if (h.text == "States") {
        states_declared_ = number("the number of states");
        states_given_ = true;
      } else if (h.text == "Start") {
        if (start_given_) fail(h, "not deterministic: more than one Start state");
        start_given_ = true;
        start_token_ = h;
        a_.start = number("the start state");
        if (peek().is('&')) fail(peek(), "not supported: a conjunction of start states (an alternating automaton)");
      } else if (h.text == "AP") {
        aps();
      } else if (h.text == "Acceptance") {
        a_.acceptance_sets = number("the number of acceptance sets");
        if (a_.acceptance_sets > 64) fail(h, "not supported: more than 64 acceptance sets");
        acceptance_given_ = true;
        a_.acceptance = acceptance_or();
      } else if (h.text == "Alias") {
        fail(h, "not supported: aliases (@name) in labels; write the labels out");
      } else {
        skip_items();  // name, tool, acc-name, properties and headers of other tools
      }
    }
  }

  void aps() {
    const HoaToken& count_token = peek();
    const std::uint32_t count = number("the number of atomic propositions");
    if (count > 64) fail(count_token, "not supported: more than 64 atomic propositions");
    for (std::uint32_t i = 0; i < count; ++i) a_.propositions.push_back(expect(Kind::string, "a proposition's name").text);
  }

  void skip_items() {
    while (peek().kind == Kind::identifier || peek().kind == Kind::string || peek().kind == Kind::integer) next();
  }

  // operand (symbol operand)*, grouped from the left into nodes of op.
  template <typename Operand>
  std::uint32_t chain(std::vector<Node>& nodes, char symbol, Node::Op op, Operand operand) {
    std::uint32_t left = operand();
    while (peek().is(symbol)) {
      next();
      left = add(nodes, {op, 0, false, left, operand()});
    }
    return left;
  }

  // Acceptance formula: | over & over atoms (Fin(n), Inf(n), Fin(!n), Inf(!n), t, f, parentheses).
  std::uint32_t acceptance_or() {
    return chain(a_.acceptance_nodes, '|', Node::Op::disjunction, [&] { return acceptance_and(); });
  }
  std::uint32_t acceptance_and() {
    return chain(a_.acceptance_nodes, '&', Node::Op::conjunction, [&] { return acceptance_atom(); });
  }
  // After t: "(" inner ")", or t and f as constants; none where t starts neither.
  template <typename Inner>
  std::optional<std::uint32_t> grouped_or_constant(const HoaToken& t, std::vector<Node>& nodes, Inner inner) {
    if (t.is('(')) {
      const std::uint32_t grouped = inner();
      expect_symbol(')');
      return grouped;
    }
    if (t.kind == Kind::identifier && (t.text == "t" || t.text == "f")) {
      return add(nodes, {t.text == "t" ? Node::Op::truth : Node::Op::falsity});
    }
    return std::nullopt;
  }

  std::uint32_t acceptance_atom() {
    const HoaToken& t = next();
    if (const auto atom = grouped_or_constant(t, a_.acceptance_nodes, [&] { return acceptance_or(); })) return *atom;
    if (t.kind != Kind::identifier || (t.text != "Fin" && t.text != "Inf")) {
      fail_expected("Fin(n), Inf(n), t, f or \"(\" in the acceptance condition", t);
    }
    expect_symbol('(');
    Node atom{t.text == "Fin" ? Node::Op::fin : Node::Op::inf};
    if (peek().is('!')) {
      next();
      atom.complemented_set = true;
    }
    const HoaToken& set = peek();
    atom.index = number("an acceptance set's number");
    if (atom.index >= a_.acceptance_sets) {
      fail(set, "acceptance set " + set.text + " is not among the " + std::to_string(a_.acceptance_sets) + " declared");
    }
    expect_symbol(')');
    return add(a_.acceptance_nodes, atom);
  }

  // Label formula: | over & over ! and atoms (t, f, a proposition's number, parentheses).
  std::uint32_t label_or() { return chain(a_.labels, '|', Node::Op::disjunction, [&] { return label_and(); }); }
  std::uint32_t label_and() { return chain(a_.labels, '&', Node::Op::conjunction, [&] { return label_not(); }); }
  std::uint32_t label_not() {
    if (!peek().is('!')) return label_atom();
    next();
    return add(a_.labels, {Node::Op::negation, 0, false, label_not()});
  }
  std::uint32_t label_atom() {
    const HoaToken& t = next();
    if (const auto atom = grouped_or_constant(t, a_.labels, [&] { return label_or(); })) return *atom;
    if (t.kind == Kind::alias) fail(t, "not supported: aliases (@name) in labels; write the labels out");
    if (t.kind != Kind::integer) fail_expected("a proposition's number, t, f, \"!\" or \"(\" in a label", t);
    const std::uint32_t ap = to_number(t);
    if (ap >= a_.propositions.size()) {
      fail(t, "proposition " + t.text + " is not among the " + std::to_string(a_.propositions.size()) + " declared (AP:)");
    }
    return add(a_.labels, {Node::Op::proposition, ap});
  }

  std::uint32_t bracketed_label() {
    expect_symbol('[');
    const std::uint32_t label = label_or();
    expect_symbol(']');
    return label;
  }

  std::uint64_t acceptance_signature() {
    std::uint64_t sets = 0;
    if (!peek().is('{')) return sets;
    next();
    while (!peek().is('}')) {
      const HoaToken& t = peek();
      const std::uint32_t set = number("an acceptance set's number or \"}\"");
      if (set >= a_.acceptance_sets) {
        fail(t, "acceptance set " + t.text + " is not among the " + std::to_string(a_.acceptance_sets) + " declared");
      }
      sets |= std::uint64_t{1} << set;
    }
    next();
    return sets;
  }

  // The states, each "State:" [label] number ["name"] [{sets}], then its edges.
  void body() {
    while (peek().kind == Kind::header && peek().text == "State") {
      next();
      std::optional<std::uint32_t> state_label;
      if (peek().is('[')) state_label = bracketed_label();
      const HoaToken& number_token = peek();
      const std::uint32_t state = number("the state's number");
      if (states_given_ && state >= states_declared_) {
        fail(number_token, "state " + number_token.text + " is not among the " + std::to_string(states_declared_) +
                               " declared (States:)");
      }
      if (state >= a_.edges.size()) {
        a_.edges.resize(state + 1);
        a_.state_sets.resize(state + 1, 0);
        defined_.resize(state + 1, false);
      }
      if (defined_[state]) fail(number_token, "state " + number_token.text + " is defined twice");
      defined_[state] = true;
      if (peek().kind == Kind::string) next();
      a_.state_sets[state] = acceptance_signature();
      edges_of(state, state_label);
    }
  }

  void edges_of(std::uint32_t state, std::optional<std::uint32_t> state_label) {
    while (peek().is('[') || peek().kind == Kind::integer) {
      HoaAutomaton::Edge edge;
      const HoaToken& at = peek();
      if (peek().is('[')) {
        if (state_label) fail(at, "an edge's label in a state that has one (a state's label is its edges')");
        edge.label = bracketed_label();
      } else if (state_label) {
        edge.label = *state_label;
      } else {
        fail(at, "not supported: an edge without a label (implicit labels); write [label] before each target");
      }
      const HoaToken& target = peek();
      edge.target = number("the edge's target state");
      if (peek().is('&')) fail(peek(), "not supported: a conjunction of targets (an alternating automaton)");
      targets_.push_back(target);
      edge.sets = acceptance_signature();
      a_.edges[state].push_back(edge);
    }
  }

  void check_complete_header() {
    if (!start_given_) fail(tokens_.front(), "the automaton has no Start: state");
    if (!acceptance_given_) fail(tokens_.front(), "the automaton has no Acceptance: condition");
    const std::uint32_t states = states_given_ ? states_declared_ : static_cast<std::uint32_t>(a_.edges.size());
    a_.edges.resize(states);
    a_.state_sets.resize(states, 0);
    if (a_.start >= states) fail(start_token_, "the start state " + std::to_string(a_.start) + " is not a state");
    for (const HoaToken& t : targets_) {
      if (to_number(t) >= states) fail(t, "the edge's target " + t.text + " is not a state");
    }
  }

  static std::uint32_t add(std::vector<Node>& nodes, Node node) {
    nodes.push_back(node);
    return static_cast<std::uint32_t>(nodes.size() - 1);
  }

  std::uint32_t to_number(const HoaToken& t) const {
    if (t.text.size() > 9) fail(t, "the number " + t.text + " is too large");
    const unsigned long long value = std::stoull(t.text);
    return static_cast<std::uint32_t>(value);
  }
  std::uint32_t number(const std::string& what) { return to_number(expect(Kind::integer, what)); }

  const HoaToken& peek() const { return tokens_[std::min(position_, tokens_.size() - 1)]; }
  const HoaToken& next() {
    const HoaToken& t = peek();
    if (position_ < tokens_.size() - 1) ++position_;
    return t;
  }
  const HoaToken& expect(Kind kind, const std::string& what) {
    if (peek().kind != kind) fail_expected(what, peek());
    return next();
  }
  void expect_symbol(char symbol) {
    if (!peek().is(symbol)) fail_expected(std::string("\"") + symbol + "\"", peek());
    next();
  }
  [[noreturn]] void fail(const HoaToken& at, const std::string& message) const {
    throw ParseError(file_, at.line, at.column, message);
  }
  [[noreturn]] void fail_expected(const std::string& what, const HoaToken& found) const {
    fail(found, "expected " + what + ", found " + found.describe());
  }

  std::string file_;
  std::vector<HoaToken> tokens_;
  std::size_t position_ = 0;
  HoaAutomaton a_;
  bool states_given_ = false, start_given_ = false, acceptance_given_ = false;
  std::uint32_t states_declared_ = 0;
  HoaToken start_token_;
  std::vector<bool> defined_;
  std::vector<HoaToken> targets_;
};

}  // namespace

HoaAutomaton read_hoa(const TextFile& file) { return HoaParser(file).automaton(); }

}  // namespace mdpvi::io
