#include "io/property_parser.h"

#include "io/lexer.h"
#include "io/token_stream.h"

namespace mdpvi::io {

namespace {

constexpr const char* kSupported =
    "not supported yet (mdpvi answers Pmin=?, Pmax=? and, for DTMCs, P=? of [ F phi ] and [ phi U psi ] so far)";

ReachabilityQuery parse_query(TokenStream& t) {
  ReachabilityQuery query;
  const Token& head = t.next();
  if (head.is_word("Pmin")) {
    query.direction = Optimization::minimize;
  } else if (head.is_word("Pmax")) {
    query.direction = Optimization::maximize;
  } else if (head.is_word("P") && t.peek().is("=?")) {
    query.direction_given = false;  // a DTMC's probability: min and max agree
  } else {
    t.fail(head, kSupported + std::string(": expected Pmin or Pmax, found ") + head.describe());
  }
  t.expect("=?");
  t.expect("[");
  auto reject_bound = [&] {
    const Token& token = t.peek();
    if (token.is("<") || token.is("<=") || token.is(">") || token.is(">=") || token.is("[") || token.is("=")) {
      t.fail(token, kSupported + std::string(": time-bounded operators come later"));
    }
  };
  if (t.accept_word("F")) {
    reject_bound();
    query.right = parse_expression(t, /*allow_labels=*/true);
  } else {
    query.left = parse_expression(t, true);
    if (!t.peek().is_word("U")) {
      if (t.peek().is_word("W") || t.peek().is_word("R")) t.fail(t.peek(), kSupported);
      t.fail_expected("'U'", t.peek());
    }
    t.next();
    reject_bound();
    query.right = parse_expression(t, true);
  }
  t.expect("]");
  if (!t.at_end()) t.fail_expected("end of property", t.peek());
  return query;
}

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

PropertyEntry parse_statement(const TextFile& file, std::vector<Token> tokens) {
  PropertyEntry entry;
  entry.text = source_text(file, tokens);
  entry.source = file.name();
  Token end{Token::Kind::end_of_input, "", tokens.back().line, tokens.back().column + tokens.back().source_length()};
  tokens.push_back(end);
  TokenStream stream(file.name(), std::move(tokens));
  try {
    entry.query = parse_query(stream);
  } catch (const ParseError& error) {
    entry.error = error.what();
  }
  return entry;
}

ConstantDeclaration parse_constant(const TextFile& file, std::vector<Token> tokens) {
  Token end{Token::Kind::end_of_input, "", tokens.back().line, tokens.back().column + tokens.back().source_length()};
  tokens.push_back(end);
  TokenStream t(file.name(), std::move(tokens));
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

bool opens(const Token& t) { return t.is("[") || t.is("(") || t.is("{"); }
bool closes(const Token& t) { return t.is("]") || t.is(")") || t.is("}"); }

}  // namespace

PropertyFile parse_properties(const TextFile& file) {
  PropertyFile result;
  std::vector<Token> tokens;
  try {
    tokens = tokenize(file, /*keep_line_ends=*/true);
  } catch (const ParseError& error) {
    result.properties.push_back({"", std::nullopt, error.what(), file.name()});
    return result;
  }
  std::vector<Token> statement;
  int depth = 0;
  auto flush = [&] {
    if (statement.empty()) return;
    if (statement.front().is_word("const")) {
      result.constants.push_back(parse_constant(file, std::move(statement)));
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
  if (parsed.properties.size() == 1 && parsed.constants.empty()) return parsed.properties.front();
  PropertyEntry entry;
  entry.text = text;
  entry.source = source;
  entry.error = parsed.properties.empty() ? source + ": expected a property, found nothing"
                                          : source + ": expected one property, found " +
                                                std::to_string(parsed.properties.size());
  return entry;
}

}  // namespace mdpvi::io
