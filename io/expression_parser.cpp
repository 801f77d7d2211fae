#include "io/token_stream.h"

#include <charconv>
#include <cmath>

namespace mdpvi::io {

bool TokenStream::accept(std::string_view symbol) {
  if (!peek().is(symbol)) return false;
  next();
  return true;
}

bool TokenStream::accept_word(std::string_view word) {
  if (!peek().is_word(word)) return false;
  next();
  return true;
}

const Token& TokenStream::expect(std::string_view symbol) {
  if (!peek().is(symbol)) fail_expected("'" + std::string(symbol) + "'", peek());
  return next();
}

const Token& TokenStream::expect_word(std::string_view word) {
  if (!peek().is_word(word)) fail_expected("'" + std::string(word) + "'", peek());
  return next();
}

const Token& TokenStream::expect_identifier(std::string_view what) {
  if (peek().kind != Token::Kind::identifier) fail_expected(what, peek());
  return next();
}

const Token& TokenStream::expect_string(std::string_view what) {
  if (peek().kind != Token::Kind::string) fail_expected(what, peek());
  return next();
}

void TokenStream::fail(const Token& at, const std::string& message) const {
  throw ParseError(file_, at.line, at.column, message);
}

void TokenStream::fail_expected(std::string_view what, const Token& found) const {
  fail(found, "expected " + std::string(what) + ", found " + found.describe());
}

namespace {

using Op = Expression::Op;

// Two operands moved into place: a braced list would copy them (its elements are
// const), and a left-deep chain of n terms would copy O(n^2) nodes (issue 26).
std::vector<Expression> operands(Expression first, Expression second) {
  std::vector<Expression> both;
  both.reserve(2);
  both.push_back(std::move(first));
  both.push_back(std::move(second));
  return both;
}

class ExpressionParser {
 public:
  ExpressionParser(TokenStream& tokens, bool allow_labels, const AtomHook& hook, bool calls_only_to_functions = false)
      : t_(tokens), allow_labels_(allow_labels), calls_only_to_functions_(calls_only_to_functions), hook_(hook) {}

  Expression arithmetic() { return additive(); }

  Expression conditional() {
    TokenStream::Nesting level(t_);
    Expression condition = iff();
    if (!t_.peek().is("?")) return condition;
    SourcePosition at = TokenStream::position(t_.next());
    Expression then_value = conditional();
    t_.expect(":");
    Expression else_value = conditional();
    return Expression::operation(Op::conditional, {std::move(condition), std::move(then_value), std::move(else_value)}, at);
  }

 private:
  template <typename Next>
  Expression left_associative(Next next_level, std::initializer_list<std::pair<std::string_view, Op>> ops) {
    Expression left = (this->*next_level)();
    while (true) {
      const Token& token = t_.peek();
      const std::pair<std::string_view, Op>* match = nullptr;
      for (const auto& op : ops) {
        if (token.is(op.first)) match = &op;
      }
      if (match == nullptr) return left;
      SourcePosition at = TokenStream::position(t_.next());
      Expression right = (this->*next_level)();
      left = Expression::operation(match->second, operands(std::move(left), std::move(right)), at);
    }
  }

  Expression iff() { return left_associative(&ExpressionParser::implies, {{"<=>", Op::iff}}); }

  Expression implies() {
    Expression left = disjunction();
    if (!t_.peek().is("=>")) return left;
    SourcePosition at = TokenStream::position(t_.next());
    TokenStream::Nesting level(t_);
    Expression right = implies();  // right-associative
    return Expression::operation(Op::implies, operands(std::move(left), std::move(right)), at);
  }

  Expression disjunction() { return left_associative(&ExpressionParser::conjunction, {{"|", Op::logical_or}}); }
  Expression conjunction() { return left_associative(&ExpressionParser::negation, {{"&", Op::logical_and}}); }

  Expression negation() {
    if (!t_.peek().is("!")) return relation();
    SourcePosition at = TokenStream::position(t_.next());
    TokenStream::Nesting level(t_);
    return Expression::operation(Op::logical_not, {negation()}, at);
  }

  Expression relation() {
    return left_associative(&ExpressionParser::additive, {{"=", Op::equal},
                                                          {"!=", Op::not_equal},
                                                          {"<", Op::less},
                                                          {"<=", Op::less_equal},
                                                          {">", Op::greater},
                                                          {">=", Op::greater_equal}});
  }

  Expression additive() {
    return left_associative(&ExpressionParser::multiplicative, {{"+", Op::add}, {"-", Op::subtract}});
  }
  Expression multiplicative() {
    return left_associative(&ExpressionParser::unary, {{"*", Op::multiply}, {"/", Op::divide}});
  }

  Expression unary() {
    if (!t_.peek().is("-")) return power();
    SourcePosition at = TokenStream::position(t_.next());
    TokenStream::Nesting level(t_);
    return Expression::operation(Op::negate, {unary()}, at);
  }

  // a ^ b, as pow(a, b): right-associative, and binding tighter than unary minus
  // (-2^2 is -4, 2^-1 is 0.5, 2^3^2 is 2^9).
  Expression power() {
    Expression base = atom();
    if (!t_.peek().is("^")) return base;
    SourcePosition at = TokenStream::position(t_.next());
    TokenStream::Nesting level(t_);
    Expression exponent = unary();
    return Expression::operation(Op::pow, operands(std::move(base), std::move(exponent)), at);
  }

  Expression number(const Token& token) {
    SourcePosition at = TokenStream::position(token);
    const std::string& text = token.text;
    bool is_integer = text.find_first_of(".eE") == std::string::npos;
    if (is_integer) {
      std::int64_t value = 0;
      auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (error != std::errc() || value > INT32_MAX) t_.fail(token, "integer " + text + " is too large");
      return Expression::integer(value, at);
    }
    double value = 0.0;
    std::from_chars(text.data(), text.data() + text.size(), value);
    return Expression::real(value, at);
  }

  struct Function {
    std::string_view name;
    Op op;
    std::size_t min_args, max_args;
  };
  static constexpr Function kFunctions[] = {
      {"min", Op::min, 1, 1000}, {"max", Op::max, 1, 1000}, {"floor", Op::floor, 1, 1}, {"ceil", Op::ceil, 1, 1},
      {"round", Op::round, 1, 1}, {"pow", Op::pow, 2, 2},    {"mod", Op::mod, 2, 2},     {"log", Op::log, 2, 2}};

  static const Function* function_named(std::string_view name) {
    for (const Function& f : kFunctions) {
      if (name == f.name) return &f;
    }
    return nullptr;
  }

  // name(args...), or PRISM's older func(name, args...): "(" is next.
  Expression call(const Token& name) {
    t_.expect("(");
    const Token* function_name = &name;
    if (name.text == "func") {
      function_name = &t_.expect_identifier("a function name (min, max, floor, ceil, round, pow, mod, log)");
      if (!t_.peek().is(",")) t_.fail_expected("','", t_.peek());
      t_.next();
    }
    const Function* f = function_named(function_name->text);
    if (f == nullptr) t_.fail(*function_name, "unknown function '" + function_name->text + "'");
    std::vector<Expression> args;
    do {
      args.push_back(conditional());
    } while (t_.accept(","));
    t_.expect(")");
    check_argument_count(*function_name, *f, args.size());
    return Expression::operation(f->op, std::move(args), TokenStream::position(name));
  }

  void check_argument_count(const Token& name, const Function& f, std::size_t count) {
    const std::size_t min_args = f.min_args, max_args = f.max_args;
    if (count < min_args || count > max_args) {
      t_.fail(name, name.text + " takes " + std::to_string(min_args) +
                        (max_args == min_args ? "" : max_args > 100 ? " or more" : " or " + std::to_string(max_args)) +
                        " arguments, found " + std::to_string(count));
    }
  }

  Expression atom() {
    if (hook_) {
      if (std::optional<Expression> hooked = hook_(t_)) return std::move(*hooked);
    }
    const Token& token = t_.next();
    SourcePosition at = TokenStream::position(token);
    switch (token.kind) {
      case Token::Kind::number: return number(token);
      case Token::Kind::string:
        if (!allow_labels_) {
          t_.fail(token, "a label (\"" + token.text + "\") cannot be used here (only in properties, and in a model's "
                         "guards, updates, rewards, labels, formulas and init block)");
        }
        return Expression::label(token.text, at);
      case Token::Kind::identifier: {
        if (token.text == "true") return Expression::boolean(true, at);
        if (token.text == "false") return Expression::boolean(false, at);
        if (t_.peek().is("(") && (!calls_only_to_functions_ || token.text == "func" || function_named(token.text))) {
          return call(token);
        }
        return Expression::identifier(token.text, at);
      }
      case Token::Kind::symbol:
        if (token.is("(")) {
          Expression inner = conditional();
          t_.expect(")");
          return inner;
        }
        break;
      default: break;
    }
    t_.fail_expected("an expression", token);
  }

  TokenStream& t_;
  bool allow_labels_;
  bool calls_only_to_functions_;  // parse_arithmetic: "k (x=1)" is k, then something else
  const AtomHook& hook_;
};

}  // namespace

Expression parse_arithmetic(TokenStream& tokens) {
  static const AtomHook none;
  return ExpressionParser(tokens, /*allow_labels=*/false, none, /*calls_only_to_functions=*/true).arithmetic();
}

Expression parse_expression(TokenStream& tokens, bool allow_labels, const AtomHook& atom_hook) {
  return ExpressionParser(tokens, allow_labels, atom_hook).conditional();
}

}  // namespace mdpvi::io
