#pragma once
// Tokens of PRISM's languages (models and properties), with 1-based positions.
#include "io/text_cursor.h"

#include <string>
#include <string_view>
#include <vector>

namespace mdpvi::io {

struct Token {
  enum class Kind { identifier, number, string, symbol, end_of_line, end_of_input };
  Kind kind;
  std::string text;  // without the quotes for strings
  std::size_t line;
  std::size_t column;

  bool is(std::string_view symbol) const { return kind == Kind::symbol && text == symbol; }
  bool is_word(std::string_view word) const { return kind == Kind::identifier && text == word; }
  std::string describe() const;  // for "found ..." in messages
  std::size_t source_length() const { return kind == Kind::string ? text.size() + 2 : text.size(); }
};

// Splits text into tokens; "//" comments are dropped. With keep_line_ends, each line
// end becomes a Token::end_of_line (property files separate properties by lines).
// Throws ParseError on a character that starts no token or an unterminated string.
std::vector<Token> tokenize(const TextFile& file, bool keep_line_ends);

}  // namespace mdpvi::io
