#include "io/property_parser.h"

#include "io/lexer.h"

namespace mdpvi::io {

namespace {

constexpr const char* kSupported =
    "not supported yet (mdpvi answers Pmin=? and Pmax=? [ F phi ] and [ phi U psi ] over labels so far)";

// Recursive descent over one property's tokens (which end with end_of_input).
class PropertyParser {
 public:
  PropertyParser(const std::string& file, const std::vector<Token>& tokens) : file_(file), tokens_(tokens) {}

  ReachabilityQuery parse_query() {
    ReachabilityQuery query;
    const Token& head = next();
    if (head.is_word("Pmin")) {
      query.direction = Optimization::minimize;
    } else if (head.is_word("Pmax")) {
      query.direction = Optimization::maximize;
    } else {
      fail(head, kSupported + std::string(": expected Pmin or Pmax, found ") + head.describe());
    }
    expect("=?", "'=?'");
    expect("[", "'['");
    if (peek().is_word("F")) {
      next();
      reject_bound();
      query.right = parse_formula();
    } else {
      query.left = parse_formula();
      const Token& op = next();
      if (!op.is_word("U")) fail(op, "expected 'U', found " + op.describe());
      reject_bound();
      query.right = parse_formula();
    }
    expect("]", "']'");
    const Token& rest = next();
    if (rest.kind != Token::Kind::end_of_input) fail(rest, "expected end of property, found " + rest.describe());
    return query;
  }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  const Token& next() { return pos_ + 1 < tokens_.size() ? tokens_[pos_++] : tokens_.back(); }

  [[noreturn]] void fail(const Token& at, const std::string& message) const {
    throw ParseError(file_, at.line, at.column, message);
  }

  void expect(std::string_view symbol, std::string_view what) {
    const Token& token = next();
    if (!token.is(symbol)) fail(token, "expected " + std::string(what) + ", found " + token.describe());
  }

  void reject_bound() {
    const Token& token = peek();
    if (token.is("<") || token.is("<=") || token.is(">") || token.is(">=") || token.is("[")) {
      fail(token, kSupported + std::string(": time-bounded operators come later"));
    }
  }

  // Precedence, loosest first, as in PRISM: <=>, =>, |, &, !.
  StateFormula parse_formula() { return parse_equivalence(); }

  StateFormula parse_equivalence() {
    StateFormula left = parse_implication();
    while (peek().is("<=>")) {
      next();
      left = StateFormula::binary(StateFormula::Kind::equivalence, std::move(left), parse_implication());
    }
    return left;
  }

  StateFormula parse_implication() {
    StateFormula left = parse_disjunction();
    if (peek().is("=>")) {  // right-associative
      next();
      return StateFormula::binary(StateFormula::Kind::implication, std::move(left), parse_implication());
    }
    return left;
  }

  StateFormula parse_disjunction() {
    StateFormula left = parse_conjunction();
    while (peek().is("|")) {
      next();
      left = StateFormula::binary(StateFormula::Kind::disjunction, std::move(left), parse_conjunction());
    }
    return left;
  }

  StateFormula parse_conjunction() {
    StateFormula left = parse_negation();
    while (peek().is("&")) {
      next();
      left = StateFormula::binary(StateFormula::Kind::conjunction, std::move(left), parse_negation());
    }
    return left;
  }

  StateFormula parse_negation() {
    if (peek().is("!")) {
      next();
      return StateFormula::unary(StateFormula::Kind::negation, parse_negation());
    }
    return parse_atom();
  }

  StateFormula parse_atom() {
    const Token& token = next();
    if (token.kind == Token::Kind::string) return StateFormula::named(token.text);
    if (token.is_word("true")) return StateFormula::truth(true);
    if (token.is_word("false")) return StateFormula::truth(false);
    if (token.is("(")) {
      StateFormula inner = parse_formula();
      expect(")", "')'");
      return inner;
    }
    if (token.kind == Token::Kind::identifier || token.kind == Token::Kind::number) {
      fail(token, kSupported + std::string(": expressions over variables and constants come later, found ") +
                      token.describe());
    }
    fail(token, "expected a quoted label, true, false, '!' or '(', found " + token.describe());
  }

  const std::string& file_;
  const std::vector<Token>& tokens_;
  std::size_t pos_ = 0;
};

std::string source_text(const TextFile& file, const std::vector<Token>& tokens) {
  // The property as written: from its first token to the end of its last one's line
  // segment. Tokens carry positions, so cut the line text between them.
  const Token& first = tokens.front();
  const Token& last = tokens[tokens.size() - 2];  // before end_of_input
  std::string text;
  for (std::size_t line = first.line; line <= last.line; ++line) {
    std::string_view row = file.line(line - 1);
    std::size_t from = line == first.line ? first.column - 1 : 0;
    std::size_t to = row.size();
    if (line == last.line) {
      to = last.column - 1 + last.source_length();
    }
    if (!text.empty()) text += ' ';
    text += row.substr(from, to - from);
  }
  return text;
}

PropertyEntry parse_statement(const TextFile& file, std::vector<Token> tokens) {
  tokens.push_back({Token::Kind::end_of_input, "", tokens.back().line, tokens.back().column + tokens.back().source_length()});
  PropertyEntry entry;
  entry.text = source_text(file, tokens);
  try {
    entry.query = PropertyParser(file.name(), tokens).parse_query();
  } catch (const ParseError& error) {
    entry.error = error.what();
  }
  return entry;
}

bool opens(const Token& t) { return t.is("[") || t.is("(") || t.is("{"); }
bool closes(const Token& t) { return t.is("]") || t.is(")") || t.is("}"); }

}  // namespace

std::vector<PropertyEntry> parse_properties(const TextFile& file) {
  std::vector<PropertyEntry> entries;
  std::vector<Token> tokens;
  try {
    tokens = tokenize(file, /*keep_line_ends=*/true);
  } catch (const ParseError& error) {
    entries.push_back({"", std::nullopt, error.what()});
    return entries;
  }
  std::vector<Token> statement;
  int depth = 0;
  auto flush = [&] {
    if (statement.empty()) return;
    // "const int k;" declares a constant of the properties file; nothing to check.
    if (!statement.front().is_word("const")) entries.push_back(parse_statement(file, std::move(statement)));
    statement.clear();
  };
  for (const Token& token : tokens) {
    bool line_end = token.kind == Token::Kind::end_of_line && depth == 0;
    if (token.is(";") || line_end || token.kind == Token::Kind::end_of_input) {
      flush();
      continue;
    }
    if (token.kind == Token::Kind::end_of_line) continue;
    if (opens(token)) ++depth;
    if (closes(token) && depth > 0) --depth;
    statement.push_back(token);
  }
  return entries;
}

PropertyEntry parse_property(const std::string& text, const std::string& source) {
  TextFile file = TextFile::from_string(source, text);
  std::vector<PropertyEntry> entries = parse_properties(file);
  if (entries.size() == 1) return entries.front();
  PropertyEntry entry;
  entry.text = text;
  entry.error = entries.empty() ? source + ": expected a property, found nothing"
                                : source + ": expected one property, found " + std::to_string(entries.size());
  return entry;
}

}  // namespace mdpvi::io
