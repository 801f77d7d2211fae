#include "io/text_cursor.h"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace mdpvi::io {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

}  // namespace

TextFile TextFile::load(const std::string& path) {
  std::ostringstream buffer;
  if (path == "-") {  // standard input, as PRISM and Storm users pipe models
    buffer << std::cin.rdbuf();
    if (std::cin.bad()) throw ParseError("<stdin>", 0, 0, "cannot read standard input");
    return from_string("<stdin>", std::move(buffer).str());
  }
  if (std::filesystem::is_directory(path)) throw ParseError(path, 0, 0, "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(path, 0, 0, "cannot open file");
  buffer << in.rdbuf();
  if (in.bad()) throw ParseError(path, 0, 0, "cannot read file");
  return from_string(path, std::move(buffer).str());
}

TextFile TextFile::from_string(std::string name, std::string text) {
  TextFile file;
  file.name_ = std::move(name);
  file.text_ = std::make_shared<const std::string>(std::move(text));
  std::string_view rest(*file.text_);
  while (!rest.empty()) {
    std::size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    file.lines_.push_back(line);
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  return file;
}

std::string exact_text(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

bool is_comment_or_blank(std::string_view line) {
  std::size_t first = line.find_first_not_of(" \t");
  return first == std::string_view::npos || line[first] == '#';
}

void LineCursor::skip_blanks() {
  while (pos_ < line_.size() && is_blank(line_[pos_])) ++pos_;
}

bool LineCursor::at_end() {
  skip_blanks();
  return pos_ >= line_.size();
}

char LineCursor::peek() {
  skip_blanks();
  return pos_ < line_.size() ? line_[pos_] : '\0';
}

std::string_view LineCursor::token_at(std::size_t pos) const {
  std::size_t end = pos;
  while (end < line_.size() && !is_blank(line_[end])) ++end;
  return line_.substr(pos, end - pos);
}

std::string_view LineCursor::next_token() {
  skip_blanks();
  std::string_view token = token_at(pos_);
  pos_ += token.size();
  return token;
}

void LineCursor::fail(std::size_t column, const std::string& message) const {
  throw ParseError(file_, line_number_, column, message);
}

void LineCursor::fail_expected(std::string_view what, std::size_t column) const {
  std::size_t pos = column - 1;
  std::string found = pos >= line_.size() ? "end of line" : "'" + std::string(token_at(pos)) + "'";
  fail(column, "expected " + std::string(what) + ", found " + found);
}

template <typename T>
static T parse_whole_token(LineCursor& cursor, std::string_view token, std::size_t column,
                           std::string_view what) {
  T value{};
  auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error != std::errc() || end != token.data() + token.size() || token.empty()) {
    cursor.fail_expected(what, column);
  }
  return value;
}

// Numbers end at a blank or at one of the separators of .lab/.sta lines.
static std::size_t number_length(std::string_view rest) {
  std::size_t n = 0;
  while (n < rest.size() && !is_blank(rest[n]) && rest[n] != ':' && rest[n] != ',' &&
         rest[n] != ')' && rest[n] != '=')
    ++n;
  return n;
}

// Reads an integer of type T at pos and moves pos past it.
template <typename T>
static T expect_integer_token(LineCursor& cursor, std::string_view line, std::size_t& pos, std::string_view what) {
  std::size_t column = pos + 1;
  std::string_view token = line.substr(pos, number_length(line.substr(pos)));
  T value = parse_whole_token<T>(cursor, token, column, what);
  pos += token.size();
  return value;
}

std::uint64_t LineCursor::expect_unsigned(std::string_view what) {
  skip_blanks();
  return expect_integer_token<std::uint64_t>(*this, line_, pos_, what);
}

std::int64_t LineCursor::expect_integer(std::string_view what) {
  skip_blanks();
  return expect_integer_token<std::int64_t>(*this, line_, pos_, what);
}

double LineCursor::expect_number(std::string_view what) {
  skip_blanks();
  std::size_t column = pos_ + 1;
  std::string_view token = token_at(pos_);
  auto value = parse_whole_token<double>(*this, token, column, what);
  pos_ += token.size();
  return value;
}

void LineCursor::expect_char(char c) {
  skip_blanks();
  if (pos_ >= line_.size() || line_[pos_] != c) fail_expected(std::string("'") + c + "'", pos_ + 1);
  ++pos_;
}

std::string LineCursor::expect_quoted(std::string_view what) {
  skip_blanks();
  std::size_t column = pos_ + 1;
  if (pos_ >= line_.size() || line_[pos_] != '"') fail_expected(what, column);
  std::size_t close = line_.find('"', pos_ + 1);
  if (close == std::string_view::npos) fail(column, "unterminated string");
  std::string text(line_.substr(pos_ + 1, close - pos_ - 1));
  pos_ = close + 1;
  return text;
}

std::string_view LineCursor::expect_identifier(std::string_view what) {
  skip_blanks();
  std::size_t start = pos_;
  if (pos_ >= line_.size() || !(std::isalpha(static_cast<unsigned char>(line_[pos_])) || line_[pos_] == '_'))
    fail_expected(what, start + 1);
  while (pos_ < line_.size() && is_identifier_char(line_[pos_])) ++pos_;
  return line_.substr(start, pos_ - start);
}

void LineCursor::expect_end() {
  skip_blanks();
  if (pos_ < line_.size()) fail_expected("end of line", pos_ + 1);
}

}  // namespace mdpvi::io
