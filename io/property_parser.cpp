#include "io/property_parser.h"

#include "io/lexer.h"
#include "io/token_stream.h"

namespace mdpvi::io {

namespace {

using Path = TemporalOperator::Path;

[[noreturn]] void unsupported(TokenStream& t, const Token& at, const std::string& what) {
  t.fail(at, "not supported yet: " + what);
}

bool is_comparison(const Token& t) { return t.is("<") || t.is("<=") || t.is(">") || t.is(">="); }

// Recursive descent over one property's tokens. State formulas are read by the
// expression parser; P, R and filter inside them come back here through its hook.
class PropertyParser {
 public:
  explicit PropertyParser(TokenStream& tokens) : t_(tokens) {}

  Formula property() {
    if (t_.peek().kind == Token::Kind::string && t_.peek(1).is(":")) {  // "name": prop
      t_.next();
      t_.next();
    }
    Formula formula = state_formula();
    if (!t_.at_end()) t_.fail_expected("end of property", t_.peek());
    return formula;
  }

 private:
  // An expression whose atoms may be operators; a lone operator is returned as is.
  Formula state_formula() {
    std::vector<Formula> nested;
    AtomHook hook = [&](TokenStream&) -> std::optional<Expression> {
      if (!starts_operator()) return std::nullopt;
      SourcePosition at = TokenStream::position(t_.peek());
      nested.push_back(operator_formula());
      return Expression::nested(nested.size() - 1, at);
    };
    Expression e = parse_expression(t_, /*allow_labels=*/true, hook);
    if (e.kind == Expression::Kind::nested) return std::move(nested[static_cast<std::size_t>(e.value)]);
    Formula f = Formula::state_formula(std::move(e));
    f.operands = std::move(nested);
    return f;
  }

  bool starts_operator() const {
    const Token& head = t_.peek();
    const Token& after = t_.peek(1);
    if (head.kind != Token::Kind::identifier) return false;
    const std::string& w = head.text;
    if (w == "filter" || w == "multi") return after.is("(");
    if (w == "P" || w == "S" || w == "R") return after.is("=?") || after.is("{") || is_comparison(after) || after.is_word("min") || after.is_word("max");
    if (w == "Pmin" || w == "Pmax" || w == "Rmin" || w == "Rmax") return after.is("=?") || is_comparison(after);
    if (w == "E" || w == "A") return after.is("[");
    return false;
  }

  Formula operator_formula() {
    const Token& head = t_.peek();
    if (head.is_word("filter")) return filter();
    if (head.is_word("multi")) unsupported(t_, head, "multi-objective queries");
    if (head.is_word("S")) unsupported(t_, head, "steady-state probabilities (S)");
    if (head.is_word("E") || head.is_word("A")) unsupported(t_, head, "CTL path quantifiers (E, A)");
    return temporal();
  }

  Formula filter() {
    Formula f;
    f.kind = Formula::Kind::filter;
    f.position = TokenStream::position(t_.next());
    t_.expect("(");
    f.filter = filter_op();
    t_.expect(",");
    f.operands.push_back(state_formula());
    if (t_.accept(",")) {
      f.operands.push_back(state_formula());
    } else {
      f.operands.push_back(Formula::state_formula(Expression::boolean(true, f.position)));
    }
    t_.expect(")");
    return f;
  }

  FilterOp filter_op() {
    static constexpr std::pair<std::string_view, FilterOp> kOps[] = {
        {"forall", FilterOp::forall}, {"exists", FilterOp::exists},     {"min", FilterOp::min},
        {"max", FilterOp::max},       {"avg", FilterOp::avg},           {"sum", FilterOp::sum},
        {"count", FilterOp::count},   {"first", FilterOp::first},       {"range", FilterOp::range},
        {"state", FilterOp::state},   {"print", FilterOp::print},       {"printall", FilterOp::printall},
        {"argmin", FilterOp::argmin}, {"argmax", FilterOp::argmax},     {"+", FilterOp::sum},
        {"&", FilterOp::forall},      {"|", FilterOp::exists}};
    const Token& token = t_.next();
    for (const auto& [name, op] : kOps) {
      if (token.text == name && token.kind != Token::Kind::string) return op;
    }
    t_.fail_expected("a filter operator (forall, exists, min, max, avg, sum, count, first, range, state, print, "
                     "printall, argmin, argmax)",
                     token);
  }

  Formula temporal() {
    const Token& head = t_.next();
    Formula f;
    f.kind = Formula::Kind::temporal;
    f.position = TokenStream::position(head);
    TemporalOperator& op = f.temporal;
    const std::string& w = head.text;
    op.kind = w[0] == 'P' ? TemporalOperator::Kind::probability : TemporalOperator::Kind::reward;
    if (w.size() > 1) op.direction = w.substr(1) == "min" ? Optimization::minimize : Optimization::maximize;
    if (op.kind == TemporalOperator::Kind::reward && w == "R" && t_.accept("{")) {
      if (t_.peek().kind == Token::Kind::string) {
        op.reward_name = t_.next().text;
      } else {
        op.reward_index = parse_expression(t_, false);
      }
      t_.expect("}");
    }
    if (!op.direction && (t_.peek().is_word("min") || t_.peek().is_word("max"))) {
      op.direction = t_.next().text == "min" ? Optimization::minimize : Optimization::maximize;
    }
    if (!t_.accept("=?")) {
      const Token& c = t_.next();
      if (!is_comparison(c)) t_.fail_expected("'=?' or a bound (<, <=, >, >=)", c);
      op.comparison = c.is("<")    ? Comparison::less
                      : c.is("<=") ? Comparison::less_equal
                      : c.is(">")  ? Comparison::greater
                                   : Comparison::greater_equal;
      op.threshold = parse_expression(t_, false);
    }
    t_.expect("[");
    if (op.kind == TemporalOperator::Kind::probability) {
      probability_path(f);
    } else {
      reward_path(f);
    }
    std::optional<Formula> legacy = legacy_filter();
    t_.expect("]");
    if (!legacy) return f;
    legacy->operands.insert(legacy->operands.begin(), std::move(f));
    return std::move(*legacy);
  }

  void probability_path(Formula& f) {
    TemporalOperator& op = f.temporal;
    const Token& first = t_.peek();
    if (first.is_word("G")) unsupported(t_, first, "G (globally); write it as 1 - P[ F !phi ]");
    if (first.is_word("X")) {
      t_.next();
      op.path = Path::next;
      f.operands.push_back(state_formula());
      return;
    }
    if (first.is_word("F")) {
      t_.next();
      op.step_bound = optional_step_bound();
      f.operands.push_back(Formula::state_formula(Expression::boolean(true, TokenStream::position(first))));
      f.operands.push_back(state_formula());
      return;
    }
    f.operands.push_back(state_formula());
    const Token& u = t_.peek();
    if (u.is_word("W") || u.is_word("R")) unsupported(t_, u, "weak until (W) and release (R)");
    if (!u.is_word("U")) t_.fail_expected("'U'", u);
    t_.next();
    op.step_bound = optional_step_bound();
    f.operands.push_back(state_formula());
  }

  void reward_path(Formula& f) {
    TemporalOperator& op = f.temporal;
    const Token& first = t_.next();
    if (first.is_word("F")) {
      op.path = Path::reachability_reward;
      f.operands.push_back(state_formula());
    } else if (first.is_word("C")) {
      op.path = Path::cumulative_reward;
      if (!t_.peek().is("<=")) unsupported(t_, t_.peek(), "total reward C without a step bound");
      op.step_bound = optional_step_bound();
    } else if (first.is_word("I")) {
      op.path = Path::instantaneous_reward;
      t_.expect("=");
      op.step_bound = bound_expression();
    } else if (first.is_word("S")) {
      unsupported(t_, first, "long-run average reward (S)");
    } else {
      t_.fail_expected("F, C<=k or I=k", first);
    }
  }

  // "<=k" or "<k" (as <=k-1) after F, U or C; nothing for an unbounded operator.
  std::optional<Expression> optional_step_bound() {
    const Token& c = t_.peek();
    if (c.is(">") || c.is(">=") || c.is("[") || c.is("=")) unsupported(t_, c, "time bounds other than <=k and <k");
    if (!c.is("<") && !c.is("<=")) return std::nullopt;
    t_.next();
    Expression bound = bound_expression();
    if (c.is("<=")) return bound;
    SourcePosition at = bound.position;
    return Expression::operation(Expression::Op::subtract, {std::move(bound), Expression::integer(1, at)}, at);
  }

  // A number, a name or a parenthesised expression: "F<=k (x=1)" must not read k(...).
  Expression bound_expression() {
    const Token& token = t_.peek();
    if (token.is("(")) return parse_expression(t_, false);
    if (token.kind == Token::Kind::number || token.kind == Token::Kind::identifier) {
      TokenStream one(t_.file(), {token, Token{Token::Kind::end_of_input, "", token.line, token.column + token.source_length()}});
      t_.next();
      return parse_expression(one, false);
    }
    t_.fail_expected("a step bound", token);
  }

  // PRISM's older filters inside the brackets: {states}, {states}{min}, {states}{max},
  // {states}{min}{max} (the first state, the minimum, the maximum, the range).
  std::optional<Formula> legacy_filter() {
    if (!t_.peek().is("{")) return std::nullopt;
    Formula f;
    f.kind = Formula::Kind::filter;
    f.position = TokenStream::position(t_.next());
    Formula states = state_formula();
    t_.expect("}");
    bool min = false, max = false;
    while (t_.accept("{")) {
      const Token& which = t_.next();
      if (which.is_word("min")) {
        min = true;
      } else if (which.is_word("max")) {
        max = true;
      } else {
        t_.fail_expected("'min' or 'max'", which);
      }
      t_.expect("}");
    }
    f.filter = min && max ? FilterOp::range : min ? FilterOp::min : max ? FilterOp::max : FilterOp::first;
    f.operands.push_back(std::move(states));
    return f;
  }

  TokenStream& t_;
};

std::string source_text(const TextFile& file, const std::vector<Token>& tokens) {
  // The property as written: from its first token to the end of its last one.
  const Token& first = tokens.front();
  const Token& last = tokens.back();
  std::string text;
  for (std::size_t line = first.line; line <= last.line; ++line) {
    std::string_view row = file.line(line - 1);
    std::size_t from = line == first.line ? first.column - 1 : 0;
    std::size_t to = line == last.line ? last.column - 1 + last.source_length() : row.size();
    if (!text.empty()) text += ' ';
    text += row.substr(from, to - from);
  }
  return text;
}

// One statement's tokens, ended where its last token ends. Pre: tokens not empty.
TokenStream statement_stream(const TextFile& file, std::vector<Token> tokens) {
  const Token& last = tokens.back();
  tokens.push_back({Token::Kind::end_of_input, "", last.line, last.column + last.source_length()});
  return TokenStream(file.name(), std::move(tokens));
}

PropertyEntry parse_statement(const TextFile& file, std::vector<Token> tokens) {
  PropertyEntry entry;
  entry.text = source_text(file, tokens);
  entry.source = file.name();
  if (tokens.size() > 1 && tokens[0].kind == Token::Kind::string && tokens[1].is(":")) entry.name = tokens[0].text;
  TokenStream stream = statement_stream(file, std::move(tokens));
  try {
    entry.formula = PropertyParser(stream).property();
  } catch (const ParseError& error) {
    entry.error = error.what();
  }
  return entry;
}

ConstantDeclaration parse_constant(const TextFile& file, std::vector<Token> tokens) {
  TokenStream t = statement_stream(file, std::move(tokens));
  t.expect_word("const");
  ConstantDeclaration c;
  if (t.accept_word("double")) {
    c.type = ValueType::real;
  } else if (t.accept_word("bool")) {
    c.type = ValueType::boolean;
  } else {
    t.accept_word("int");
  }
  const Token& name = t.expect_identifier("a constant name");
  c.name = name.text;
  c.position = TokenStream::position(name);
  if (t.accept("=")) c.value = parse_expression(t, false);
  if (!t.at_end()) t.fail_expected("';'", t.peek());
  return c;
}

LabelDeclaration parse_label(const TextFile& file, std::vector<Token> tokens) {
  TokenStream t = statement_stream(file, std::move(tokens));
  t.expect_word("label");
  LabelDeclaration label;
  const Token& name = t.expect_string("a label name in quotes");
  label.name = name.text;
  label.position = TokenStream::position(name);
  t.expect("=");
  label.body = parse_expression(t, /*allow_labels=*/true);
  if (!t.at_end()) t.fail_expected("';'", t.peek());
  return label;
}

bool opens(const Token& t) { return t.is("[") || t.is("(") || t.is("{"); }
bool closes(const Token& t) { return t.is("]") || t.is(")") || t.is("}"); }

}  // namespace

PropertyFile parse_properties(const TextFile& file) {
  PropertyFile result;
  std::vector<Token> tokens;
  try {
    tokens = tokenize(file, /*keep_line_ends=*/true);
  } catch (const ParseError& error) {
    result.properties.push_back({"", "", std::nullopt, error.what(), file.name()});
    return result;
  }
  std::vector<Token> statement;
  int depth = 0;
  auto flush = [&] {
    if (statement.empty()) return;
    if (statement.front().is_word("const")) {
      result.constants.push_back(parse_constant(file, std::move(statement)));
    } else if (statement.front().is_word("label")) {
      result.labels.push_back(parse_label(file, std::move(statement)));
    } else {
      result.properties.push_back(parse_statement(file, std::move(statement)));
    }
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
  return result;
}

PropertyEntry parse_property(const std::string& text, const std::string& source) {
  TextFile file = TextFile::from_string(source, text);
  PropertyFile parsed = parse_properties(file);
  if (parsed.properties.size() == 1 && parsed.constants.empty() && parsed.labels.empty()) return parsed.properties.front();
  PropertyEntry entry;
  entry.text = text;
  entry.source = source;
  entry.error = parsed.properties.empty() ? source + ": expected a property, found nothing"
                                          : source + ": expected one property, found " +
                                                std::to_string(parsed.properties.size());
  return entry;
}

}  // namespace mdpvi::io
