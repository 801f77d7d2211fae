#pragma once
// A cursor over tokens for the recursive-descent parsers of models and properties.
#include "io/expression.h"
#include "io/lexer.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mdpvi::io {

class TokenStream {
 public:
  // Pre: tokens end with Token::Kind::end_of_input.
  TokenStream(std::string file, std::vector<Token> tokens) : file_(std::move(file)), tokens_(std::move(tokens)) {}

  const Token& peek(std::size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token& next() { return pos_ + 1 < tokens_.size() ? tokens_[pos_++] : tokens_.back(); }
  bool at_end() const { return peek().kind == Token::Kind::end_of_input; }
  // Where the cursor is, and back there (a parser that tries one reading, then another).
  std::size_t mark() const { return pos_; }
  void rewind(std::size_t mark) { pos_ = mark; }
  bool accept(std::string_view symbol);
  bool accept_word(std::string_view word);
  const Token& expect(std::string_view symbol);
  const Token& expect_word(std::string_view word);
  const Token& expect_identifier(std::string_view what);
  const Token& expect_string(std::string_view what);

  [[noreturn]] void fail(const Token& at, const std::string& message) const;
  [[noreturn]] void fail_expected(std::string_view what, const Token& found) const;
  const std::string& file() const { return file_; }
  static SourcePosition position(const Token& t) { return {t.line, t.column}; }

  // How deep the recursive-descent parsers may nest (parentheses, !, unary -, =>, ?:,
  // P[...] inside P[...]): an input is refused with an error at the token that goes
  // deeper, never by overflowing the stack (2,000 parentheses in a 4 KB file did).
  static constexpr int kMaxNesting = 200;
  // One level of nesting while it lives.
  class Nesting {
   public:
    explicit Nesting(TokenStream& t) : t_(t) {
      if (t_.nesting_ == kMaxNesting) {
        t_.fail(t_.peek(), "nested deeper than " + std::to_string(kMaxNesting) + " levels (parentheses, operators or "
                           "properties); mdpvi stops there");
      }
      ++t_.nesting_;
    }
    ~Nesting() { --t_.nesting_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    TokenStream& t_;
  };

 private:
  std::string file_;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  int nesting_ = 0;
};

// PRISM's expression grammar, loosest first: c ? a : b, <=>, =>, |, &, !, relations
// (= != < <= > >=), + -, * /, unary -, ^ (right-associative), then literals, names,
// "labels" (where allow_labels), parentheses and calls of min, max, floor, ceil,
// round, pow, mod and log, also in PRISM's older form func(name, args...).
// atom_hook, where given, is tried first wherever an atom may start; the property
// parser reads P[...], R[...] and filter(...) inside state formulas with it.
using AtomHook = std::function<std::optional<Expression>(TokenStream&)>;
Expression parse_expression(TokenStream& tokens, bool allow_labels, const AtomHook& atom_hook = {});

// Only the arithmetic part (+ - * / ^, unary -), in which a name followed by "(" is a
// call only where it names a function: a step bound, where "F<=N+5 x=N" is N+5 and
// "F<=k (x=1)" is k, each followed by the state formula.
Expression parse_arithmetic(TokenStream& tokens);

}  // namespace mdpvi::io
