#include "io/lexer.h"

#include <array>
#include <cctype>

namespace mdpvi::io {

std::string Token::describe() const {
  switch (kind) {
    case Kind::identifier: return "'" + text + "'";
    case Kind::number: return "number " + text;
    case Kind::string: return "\"" + text + "\"";
    case Kind::symbol: return "'" + text + "'";
    case Kind::end_of_line: return "end of line";
    case Kind::end_of_input: return "end of input";
  }
  return text;
}

namespace {

// Longest first, so that "<=>" is not read as "<=" then ">".
constexpr std::array<std::string_view, 9> kLongSymbols = {"<=>", "=>", "<=", ">=", "!=", "..", "->", "'=", "=?"};
constexpr std::string_view kShortSymbols = "[](){}!&|=?<>,;:+-*/'^";

bool starts_identifier(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool continues_identifier(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)); }

std::size_t number_end(std::string_view line, std::size_t pos) {
  while (pos < line.size() && is_digit(line[pos])) ++pos;
  // "0..5" is a range, not the number "0."
  if (pos + 1 < line.size() && line[pos] == '.' && is_digit(line[pos + 1])) {
    ++pos;
    while (pos < line.size() && is_digit(line[pos])) ++pos;
  }
  if (pos < line.size() && (line[pos] == 'e' || line[pos] == 'E')) {
    std::size_t exp = pos + 1;
    if (exp < line.size() && (line[exp] == '+' || line[exp] == '-')) ++exp;
    if (exp < line.size() && is_digit(line[exp])) {
      pos = exp;
      while (pos < line.size() && is_digit(line[pos])) ++pos;
    }
  }
  return pos;
}

}  // namespace

std::vector<Token> tokenize(const TextFile& file, bool keep_line_ends) {
  std::vector<Token> tokens;
  for (std::size_t index = 0; index < file.num_lines(); ++index) {
    std::string_view line = file.line(index);
    const std::size_t line_number = index + 1;
    std::size_t pos = 0;
    while (pos < line.size()) {
      char c = line[pos];
      std::size_t column = pos + 1;
      if (c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r') {  // \r: files written on Windows
        ++pos;
      } else if (line.substr(pos, 2) == "//") {
        break;
      } else if (starts_identifier(c)) {
        std::size_t end = pos;
        while (end < line.size() && continues_identifier(line[end])) ++end;
        tokens.push_back({Token::Kind::identifier, std::string(line.substr(pos, end - pos)), line_number, column});
        pos = end;
      } else if (is_digit(c) || (c == '.' && pos + 1 < line.size() && is_digit(line[pos + 1]))) {
        std::size_t end = number_end(line, c == '.' ? pos + 1 : pos);
        tokens.push_back({Token::Kind::number, std::string(line.substr(pos, end - pos)), line_number, column});
        pos = end;
      } else if (c == '"') {
        std::size_t close = line.find('"', pos + 1);
        if (close == std::string_view::npos) throw ParseError(file.name(), line_number, column, "unterminated string");
        tokens.push_back({Token::Kind::string, std::string(line.substr(pos + 1, close - pos - 1)), line_number, column});
        pos = close + 1;
      } else {
        std::string_view symbol;
        for (std::string_view candidate : kLongSymbols) {
          if (line.substr(pos, candidate.size()) == candidate) {
            symbol = candidate;
            break;
          }
        }
        if (symbol.empty() && kShortSymbols.find(c) != std::string_view::npos) symbol = line.substr(pos, 1);
        if (symbol.empty()) {
          throw ParseError(file.name(), line_number, column, "unexpected character '" + std::string(1, c) + "'");
        }
        tokens.push_back({Token::Kind::symbol, std::string(symbol), line_number, column});
        pos += symbol.size();
      }
    }
    if (keep_line_ends) tokens.push_back({Token::Kind::end_of_line, "", line_number, line.size() + 1});
  }
  std::size_t last_line = file.num_lines() == 0 ? 1 : file.num_lines();
  tokens.push_back({Token::Kind::end_of_input, "", last_line, 1});
  return tokens;
}

}  // namespace mdpvi::io
