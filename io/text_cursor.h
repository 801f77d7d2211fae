#pragma once
// Reading line-oriented text files token by token, with positions for errors.
#include "io/parse_error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mdpvi::io {

// The whole file in memory, split into lines (a trailing '\r' is dropped: CRLF files).
class TextFile {
 public:
  // Throws ParseError (line 0) when the file cannot be read.
  static TextFile load(const std::string& path);
  static TextFile from_string(std::string name, std::string text);

  const std::string& name() const { return name_; }
  std::size_t num_lines() const { return lines_.size(); }
  std::string_view line(std::size_t index) const { return lines_[index]; }  // 0-based

 private:
  std::string name_;
  // On the heap (shared, immutable), so that the line views stay valid when the
  // TextFile moves or is copied: a short text lives inside the std::string object
  // itself (small-string storage), and a moved std::string would leave the views
  // pointing at the old object (issue 26).
  std::shared_ptr<const std::string> text_;
  std::vector<std::string_view> lines_;
};

// A cursor over one line. Every expect_* skips blanks first and throws a ParseError
// "expected WHAT, found TOKEN" at the token's column.
class LineCursor {
 public:
  LineCursor(const std::string& file, std::size_t line_number, std::string_view line)
      : file_(file), line_number_(line_number), line_(line) {}

  bool at_end();
  std::size_t column() {  // of the next token
    skip_blanks();
    return pos_ + 1;
  }
  char peek();

  std::string_view next_token();  // up to the next blank; empty at the end
  std::uint64_t expect_unsigned(std::string_view what);
  std::int64_t expect_integer(std::string_view what);
  double expect_number(std::string_view what);
  void expect_char(char c);
  std::string expect_quoted(std::string_view what);  // "..." without the quotes
  // An identifier: a letter or '_' then letters, digits, '_'.
  std::string_view expect_identifier(std::string_view what);
  void expect_end();

  [[noreturn]] void fail(std::size_t column, const std::string& message) const;
  [[noreturn]] void fail_expected(std::string_view what, std::size_t column) const;

 private:
  void skip_blanks();
  std::string_view token_at(std::size_t pos) const;

  const std::string& file_;
  std::size_t line_number_;
  std::string_view line_;
  std::size_t pos_ = 0;
};

// Lines that are empty (after blanks) or start with '#' carry no data in PRISM's
// explicit files.
bool is_comment_or_blank(std::string_view line);

// A number as errors about the files show it: all 17 significant digits ("%.17g"), so
// that a sum off by one ulp does not print as 1.
std::string exact_text(double value);

}  // namespace mdpvi::io
