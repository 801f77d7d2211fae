#include "io/property_parser.h"

#include "io/hoa_reader.h"
#include "io/lexer.h"
#include "io/parse_error.h"
#include "io/token_stream.h"

#include <algorithm>
#include <filesystem>
#include <optional>

namespace mdpvi::io {

namespace {

using Path = TemporalOperator::Path;
using Op = Expression::Op;

[[noreturn]] void unsupported(TokenStream& t, const Token& at, const std::string& what) {
  throw UnsupportedError(t.file(), at.line, at.column, "not supported yet: " + what);
}

bool is_comparison(const Token& t) { return t.is("<") || t.is("<=") || t.is(">") || t.is(">="); }

// Recursive descent over one property's tokens. State formulas are read by the
// expression parser; P, R and filter inside them come back here through its hook.
class PropertyParser {
 public:
  PropertyParser(TokenStream& tokens, const FileDirectories& directories) : t_(tokens), directories_(directories) {}

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
      if (starts_temporal_operator()) {
        unsupported(t_, t_.peek(), "LTL (a temporal operator " + t_.peek().text + " inside a path formula)");
      }
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
    if (starts_coalition()) return true;
    if (head.kind != Token::Kind::identifier) return false;
    const std::string& w = head.text;
    if (w == "filter" || w == "multi") return after.is("(");
    if (w == "P" || w == "S" || w == "R") return after.is("=?") || after.is("{") || is_comparison(after) || after.is_word("min") || after.is_word("max");
    if (w == "Pmin" || w == "Pmax" || w == "Rmin" || w == "Rmax" || w == "Smin" || w == "Smax") {
      return after.is("=?") || is_comparison(after);
    }
    if (w == "E" || w == "A") return after.is("[");
    return false;
  }

  // F, G or X where a state formula is expected, followed by what starts a formula
  // (a variable of that name is followed by an operator instead: "F=1").
  bool starts_temporal_operator() const {
    const Token& head = t_.peek();
    if (head.is_word("HOA") && t_.peek(1).is(":")) return true;  // HOA: { "file", ... }: an automaton's path
    if (!head.is_word("F") && !head.is_word("G") && !head.is_word("X")) return false;
    const Token& after = t_.peek(1);
    return after.kind == Token::Kind::string || after.kind == Token::Kind::identifier ||
           after.kind == Token::Kind::number || after.is("(") || after.is("!") || after.is("[") ||
           (!head.is_word("X") && (is_comparison(after) || after.is("=")));  // a step bound
  }

  // <<C>> or [[C]] (PRISM's strategy operators), which no expression starts with.
  bool starts_coalition() const {
    return (t_.peek().is("<") && t_.peek(1).is("<")) || (t_.peek().is("[") && t_.peek(1).is("["));
  }

  // <<C>> P... or [[C]] R...: C a list of players (*, names, numbers), maybe empty.
  Formula coalition_formula() {
    const bool angle = t_.next().is("<");
    t_.next();
    const char* close = angle ? ">" : "]";
    bool empty = true;
    while (!t_.peek().is(close)) {
      const Token& player = t_.next();
      const bool named = player.is("*") || player.kind == Token::Kind::identifier || player.kind == Token::Kind::number;
      if (!named) t_.fail_expected(std::string("a player (*, a name or a number) or '") + close + close + "'", player);
      if (!t_.accept(",") && !t_.peek().is(close)) t_.fail_expected(std::string("',' or '") + close + close + "'", t_.peek());
      empty = false;
    }
    t_.expect(close);
    t_.expect(close);
    const Token& at = t_.peek();
    if (!starts_operator() || (at.text[0] != 'P' && at.text[0] != 'R')) {  // not S, E, A, filter, multi, <<
      t_.fail_expected(std::string("a P or R operator after ") + (angle ? "<<...>>" : "[[...]]"), at);
    }
    Formula f = temporal();
    f.temporal.some_scheduler = angle != empty;
    return f;
  }

  Formula operator_formula() {
    const Token& head = t_.peek();
    if (starts_coalition()) return coalition_formula();
    if (head.is_word("filter")) return filter();
    if (head.is_word("multi")) return multi();
    if (head.is_word("E") || head.is_word("A")) return path_quantifier();
    return temporal();
  }

  // multi(objective, ...): each objective a P or R operator, one of them =? at most
  // for a number (several: a Pareto query), the others bounds.
  Formula multi() {
    Formula f;
    f.kind = Formula::Kind::multi;
    f.position = TokenStream::position(t_.next());
    t_.expect("(");
    do {
      const Token& at = t_.peek();
      Formula objective = state_formula();
      if (objective.kind != Formula::Kind::temporal || (objective.temporal.kind != TemporalOperator::Kind::probability &&
                                                        objective.temporal.kind != TemporalOperator::Kind::reward)) {
        t_.fail_expected("a P or R operator as an objective of multi(...)", at);
      }
      f.operands.push_back(std::move(objective));
    } while (t_.accept(","));
    t_.expect(")");
    return f;
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

  // CTL: E [ path ] or A [ path ], the paths of P[...].
  Formula path_quantifier() {
    const Token& head = t_.next();
    Formula f;
    f.kind = Formula::Kind::temporal;
    f.position = TokenStream::position(head);
    f.temporal.kind = head.is_word("E") ? TemporalOperator::Kind::exists : TemporalOperator::Kind::forall;
    t_.expect("[");
    path_or_ltl(f, &PropertyParser::probability_path);
    t_.expect("]");
    return f;
  }

  Formula temporal() {
    const Token& head = t_.next();
    Formula f;
    f.kind = Formula::Kind::temporal;
    f.position = TokenStream::position(head);
    TemporalOperator& op = f.temporal;
    const std::string& w = head.text;
    op.kind = w[0] == 'P'   ? TemporalOperator::Kind::probability
              : w[0] == 'S' ? TemporalOperator::Kind::steady_state
                            : TemporalOperator::Kind::reward;
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
      path_or_ltl(f, &PropertyParser::probability_path);
    } else if (op.kind == TemporalOperator::Kind::steady_state) {
      f.operands.push_back(state_formula());
    } else {
      path_or_ltl(f, &PropertyParser::reward_path);
    }
    std::optional<Formula> legacy = legacy_filter();
    t_.expect("]");
    if (!legacy) return f;
    legacy->operands.insert(legacy->operands.begin(), std::move(f));
    return std::move(*legacy);
  }

  void probability_path(Formula& f, bool in_parentheses = false) {
    if (in_parentheses_read(f, in_parentheses, &PropertyParser::probability_path)) return;
    TemporalOperator& op = f.temporal;
    const Token& first = t_.peek();
    if (first.is_word("X")) {
      t_.next();
      op.path = Path::next;
      f.operands.push_back(state_formula());
      return;
    }
    if (first.is_word("F") || first.is_word("G")) {
      t_.next();
      step_bounds(op);
      if (infinitely_often_path(f, first)) return;
      f.operands.push_back(Formula::state_formula(Expression::boolean(true, TokenStream::position(first))));
      f.operands.push_back(state_formula());
      if (first.is_word("G")) {  // G phi = !(F !phi)
        op.complement = true;
        f.operands[1] = negated(std::move(f.operands[1]));
      }
      return;
    }
    Formula left = state_formula();
    const Token& u = t_.peek();
    if (!u.is_word("U") && !u.is_word("W") && !u.is_word("R")) {
      // A bare state formula, as PRISM reads P=? [ s=1 ] and E [ s=0 ]: the paths where
      // it holds now, which are those of phi U phi.
      if (!u.is("]") && !u.is(")") && !u.is("{")) t_.fail_expected("'U', 'W' or 'R'", u);
      f.operands.push_back(left);
      f.operands.push_back(std::move(left));
      return;
    }
    t_.next();
    step_bounds(op);
    Formula right = state_formula();
    if (u.is_word("U")) {
      f.operands.push_back(std::move(left));
      f.operands.push_back(std::move(right));
    } else if (u.is_word("W")) {  // phi W psi = !((!psi) U (!phi & !psi))
      op.complement = true;
      f.operands.push_back(negated(right));
      f.operands.push_back(neither(std::move(left), std::move(right)));
    } else {  // phi R psi = !((!phi) U (!psi))
      op.complement = true;
      f.operands.push_back(negated(std::move(left)));
      f.operands.push_back(negated(std::move(right)));
    }
  }

  // A path of P, E, A or R: read as one of the simple forms (path: probability_path or
  // reward_path) where it is one; where that reading meets a temporal operator it
  // cannot hold (LTL), the path is read again as LTL (ltl_binary).
  void path_or_ltl(Formula& f, void (PropertyParser::*path)(Formula&, bool)) {
    const std::size_t start = t_.mark();
    const Formula before = f;
    std::optional<ParseError> simple_error;  // where the simple reading fails, and LTL's too: its message
    try {
      (this->*path)(f, false);
      // A simple path followed by more of one (F "a" U "b" is (F "a") U "b") is LTL too.
      if (t_.peek().is("]") || t_.peek().is("{")) return;
    } catch (const UnsupportedError& error) {
      if (std::string_view(error.what()).find("not supported yet: LTL") == std::string_view::npos) throw;
    } catch (const ParseError& error) {  // "a" U ("b" U "c"): a path where a state formula was read
      simple_error = error;  // (a reward's too: R [ ("a" U "b") & (F "c") ])
    }
    t_.rewind(start);
    f = before;
    PathFormula root;
    try {
      root = ltl_binary(f);
      if (simple_error && !t_.peek().is("]") && !t_.peek().is("{")) throw *simple_error;
    } catch (const UnsupportedError&) {
      throw;
    } catch (const ParseError&) {
      if (simple_error) throw *simple_error;
      throw;
    }
    if (f.operands.size() > 64) unsupported(t_, t_.peek(), "LTL over more than 64 state formulas");
    if (automaton_inside(root)) {
      unsupported(t_, t_.peek(), "a HOA file's automaton inside a larger path (only HOA: {...} and its negation)");
    }
    f.temporal.path = Path::ltl;
    f.temporal.ltl = std::make_shared<const PathFormula>(std::move(root));
  }

  // PRISM's path grammar: unary ( (U | W | R) unary )?, where unary is X, F or G of a
  // unary, or a state formula whose atoms may be parenthesised paths (and, where PRISM
  // would want parentheses, X, F or G of a unary). The state formulas become f's operands.
  PathFormula ltl_binary(Formula& f) {
    PathFormula left = ltl_unary(f);
    const Token& u = t_.peek();
    if (!u.is_word("U") && !u.is_word("W") && !u.is_word("R")) return left;
    t_.next();
    const PathFormula::Op op = u.is_word("U")   ? PathFormula::Op::until
                               : u.is_word("W") ? PathFormula::Op::weak_until
                                                : PathFormula::Op::release;
    PathFormula node = PathFormula::binary(op, std::move(left), PathFormula{});
    ltl_step_bounds(f, node);
    node.operands[1] = ltl_unary(f);
    return node;
  }

  PathFormula ltl_unary(Formula& f) {
    if (!starts_temporal_operator()) return ltl_state(f);
    if (t_.peek().is_word("HOA")) return hoa_path(f);
    TokenStream::Nesting level(t_);
    const Token& head = t_.next();
    const PathFormula::Op op = head.is_word("X")   ? PathFormula::Op::next
                               : head.is_word("F") ? PathFormula::Op::eventually
                                                   : PathFormula::Op::always;
    PathFormula node = PathFormula::unary(op, PathFormula{});
    if (op != PathFormula::Op::next) ltl_step_bounds(f, node);
    node.operands[0] = ltl_unary(f);
    return node;
  }

  // HOA: { "file", "ap" <- expression, ... }: the deterministic automaton of a HOA file
  // (io/hoa_reader.h), each proposition the expression given for it, else the label of
  // its name. The file is found as PRISM finds it: $PROPERTY_DIR and $MODEL_DIR
  // expanded, a relative path taken from the properties file's directory.
  PathFormula hoa_path(Formula& f) {
    const Token& head = t_.next();
    t_.expect(":");
    t_.expect("{");
    const Token& file = t_.expect_string("the automaton's file name in quotes");
    std::vector<std::pair<Token, Expression>> given;
    while (t_.accept(",")) {
      const Token& name = t_.expect_string("a proposition's name in quotes");
      t_.expect("<");
      t_.expect("-");
      given.emplace_back(name, parse_expression(t_, /*allow_labels=*/true));
    }
    t_.expect("}");
    PathFormula node;
    node.op = PathFormula::Op::automaton;
    node.automaton = std::make_shared<const HoaAutomaton>(read_automaton(file));
    for (const std::string& proposition : node.automaton->propositions) {
      const auto named = std::find_if(given.begin(), given.end(), [&](const auto& g) { return g.first.text == proposition; });
      f.operands.push_back(Formula::state_formula(
          named != given.end() ? named->second : Expression::label(proposition, TokenStream::position(head))));
      node.operands.push_back(PathFormula::atom(static_cast<std::uint32_t>(f.operands.size() - 1)));
    }
    for (const auto& [name, expression] : given) {
      const std::vector<std::string>& aps = node.automaton->propositions;
      if (std::find(aps.begin(), aps.end(), name.text) == aps.end()) {
        t_.fail(name, "the automaton of " + node.automaton->source + " has no proposition \"" + name.text + "\"");
      }
    }
    return node;
  }

  HoaAutomaton read_automaton(const Token& file) {
    const std::string path = directories_.resolve(file.text);
    std::optional<TextFile> text;
    try {
      text = TextFile::load(path);
    } catch (const ParseError&) {
      t_.fail(file, "cannot read the automaton's file " + path);
    }
    return read_hoa(*text);
  }

  // An automaton below something other than negations (the automaton or its negation
  // is a path of its own).
  static bool automaton_inside(const PathFormula& root) {
    bool negated = false;
    return root.under_negations(negated).op != PathFormula::Op::automaton && root.names_automaton();
  }

  // A step bound after F, G, U, W or R inside a path: kept in f's ltl_bounds, numbered
  // in node (engine/automata/step_bounds.h unfolds them).
  void ltl_step_bounds(Formula& f, PathFormula& node) {
    TemporalOperator bounds;
    step_bounds(bounds);
    std::vector<Expression>& kept = f.temporal.ltl_bounds;
    if (bounds.lower_step_bound) {
      node.lower_bound = static_cast<std::int32_t>(kept.size());
      kept.push_back(std::move(*bounds.lower_step_bound));
    }
    if (bounds.step_bound) {
      node.upper_bound = static_cast<std::int32_t>(kept.size());
      kept.push_back(std::move(*bounds.step_bound));
    }
  }

  // Expression::nested values from here up name a path, not an operator.
  static constexpr std::size_t kPathAtoms = std::size_t{1} << 30;

  PathFormula ltl_state(Formula& f) {
    std::vector<Formula> nested;
    std::vector<PathFormula> paths;
    AtomHook hook = [&](TokenStream&) -> std::optional<Expression> {
      const SourcePosition at = TokenStream::position(t_.peek());
      if (starts_temporal_operator()) {
        paths.push_back(ltl_unary(f));
        return Expression::nested(kPathAtoms + paths.size() - 1, at);
      }
      if (t_.peek().is("(") && parenthesised_ltl()) {
        TokenStream::Nesting level(t_);
        t_.next();
        paths.push_back(ltl_binary(f));
        t_.expect(")");
        return Expression::nested(kPathAtoms + paths.size() - 1, at);
      }
      if (!starts_operator()) return std::nullopt;
      nested.push_back(operator_formula());
      return Expression::nested(nested.size() - 1, at);
    };
    const Expression e = parse_expression(t_, /*allow_labels=*/true, hook);
    return lowered(e, nested, paths, f);
  }

  static bool names_path(const Expression& e) {
    if (e.kind == Expression::Kind::nested) return static_cast<std::size_t>(e.value) >= kPathAtoms;
    for (const Expression& operand : e.operands) {
      if (names_path(operand)) return true;
    }
    return false;
  }

  // A state formula's expression with paths among its atoms, as a path: its Boolean
  // operators over paths and over the state formulas without paths (each one atom).
  PathFormula lowered(const Expression& e, const std::vector<Formula>& nested, const std::vector<PathFormula>& paths,
                      Formula& f) {
    using P = PathFormula;
    if (!names_path(e)) {
      f.operands.push_back(state_formula_of(e, nested));
      return P::atom(static_cast<std::uint32_t>(f.operands.size() - 1));
    }
    if (e.kind == Expression::Kind::nested) return paths[static_cast<std::size_t>(e.value) - kPathAtoms];
    const auto sub = [&](std::size_t i) { return lowered(e.operands[i], nested, paths, f); };
    const auto negated = [](P a) { return P::unary(P::Op::negation, std::move(a)); };
    if (e.kind == Expression::Kind::operation) {
      switch (e.op) {
        case Op::logical_not: return negated(sub(0));
        case Op::logical_and: return P::binary(P::Op::conjunction, sub(0), sub(1));
        case Op::logical_or: return P::binary(P::Op::disjunction, sub(0), sub(1));
        case Op::implies: return P::binary(P::Op::disjunction, negated(sub(0)), sub(1));
        case Op::iff: {
          P a = sub(0), b = sub(1);
          return P::binary(P::Op::disjunction, P::binary(P::Op::conjunction, a, b),
                           P::binary(P::Op::conjunction, negated(a), negated(b)));
        }
        case Op::conditional: {
          P c = sub(0);
          return P::binary(P::Op::disjunction, P::binary(P::Op::conjunction, c, sub(1)),
                           P::binary(P::Op::conjunction, negated(c), sub(2)));
        }
        default: break;
      }
    }
    throw ParseError(t_.file(), e.position.line, e.position.column,
                     "expected a Boolean combination of paths (!, &, |, =>, <=>, ?:), found another operator over a path");
  }

  // e (no paths in it) as a state formula over the operators it names in nested.
  static Formula state_formula_of(const Expression& e, const std::vector<Formula>& nested) {
    if (e.kind == Expression::Kind::nested) return nested[static_cast<std::size_t>(e.value)];
    Formula out = Formula::state_formula(e);
    renumber_nested(out.expression, nested, out.operands);
    return out;
  }

  static void renumber_nested(Expression& e, const std::vector<Formula>& nested, std::vector<Formula>& into) {
    if (e.kind == Expression::Kind::nested) {
      into.push_back(nested[static_cast<std::size_t>(e.value)]);
      e.value = static_cast<double>(into.size() - 1);
    }
    for (Expression& operand : e.operands) renumber_nested(operand, nested, into);
  }

  // "(" whose parentheses hold a path: a temporal operator at any depth outside
  // brackets (a nested P's path is its own).
  bool parenthesised_ltl() const {
    int depth = 0;
    for (std::size_t ahead = 0;; ++ahead) {
      const Token& token = t_.peek(ahead);
      if (token.kind == Token::Kind::end_of_input) return false;
      if (token.is("[")) {
        skip_brackets(ahead);
        continue;
      }
      if (token.is("(")) ++depth;
      if (token.is(")") && --depth == 0) return false;
      if (temporal_at(ahead)) return true;
    }
  }

  void skip_brackets(std::size_t& ahead) const {
    int depth = 0;
    for (;; ++ahead) {
      const Token& token = t_.peek(ahead);
      if (token.kind == Token::Kind::end_of_input) return;
      if (token.is("[")) ++depth;
      if (token.is("]") && --depth == 0) return;
    }
  }

  // X, F or G followed by what starts a formula; U, W or R between an operand's end and
  // what starts one.
  bool temporal_at(std::size_t ahead) const {
    const Token& head = t_.peek(ahead);
    if (head.kind != Token::Kind::identifier) return false;
    const Token& after = t_.peek(ahead + 1);
    const bool operand_follows = after.kind == Token::Kind::string || after.kind == Token::Kind::identifier ||
                                 after.kind == Token::Kind::number || after.is("(") || after.is("!");
    if (head.is_word("X") || head.is_word("F") || head.is_word("G")) return operand_follows || after.is("[");
    if (!head.is_word("U") && !head.is_word("W") && !head.is_word("R")) return false;
    if (ahead == 0) return false;
    const Token& before = t_.peek(ahead - 1);
    const bool operand_ends = before.kind == Token::Kind::string || before.kind == Token::Kind::identifier ||
                              before.kind == Token::Kind::number || before.is(")") || before.is("]");
    return operand_ends && operand_follows;
  }

  // E/A [ F G phi ] and [ G F phi ] (no step bounds), the CTL* paths of PRISM's case
  // studies: "eventually always" and "always eventually". A is the complement of E:
  // A [ F G phi ] = !E [ G F !phi ], A [ G F phi ] = !E [ F G !phi ]. Other nestings
  // are left to the state formula, which reports them as LTL.
  bool infinitely_often_path(Formula& f, const Token& outer) {
    TemporalOperator& op = f.temporal;
    const bool quantified = op.kind == TemporalOperator::Kind::exists || op.kind == TemporalOperator::Kind::forall;
    const Token& inner = t_.peek();
    const bool pair = (outer.is_word("F") && inner.is_word("G")) || (outer.is_word("G") && inner.is_word("F"));
    if (!quantified || !pair || op.step_bound || op.lower_step_bound || !starts_temporal_operator()) return false;
    t_.next();
    Formula phi = state_formula();
    const bool eventually_always = outer.is_word("F");
    if (op.kind == TemporalOperator::Kind::exists) {
      op.path = eventually_always ? Path::eventually_always : Path::always_eventually;
      f.operands.push_back(std::move(phi));
    } else {
      op.complement = true;
      op.path = eventually_always ? Path::always_eventually : Path::eventually_always;
      f.operands.push_back(negated(std::move(phi)));
    }
    return true;
  }

  // !f, as a state formula over f.
  static Formula negated(Formula f) {
    const SourcePosition at = f.position;
    Formula result = Formula::state_formula(Expression::operation(Op::logical_not, {Expression::nested(0, at)}, at));
    result.operands.push_back(std::move(f));
    return result;
  }

  // !a & !b, as a state formula over a and b.
  static Formula neither(Formula a, Formula b) {
    const SourcePosition at = a.position;
    Expression both = Expression::operation(
        Op::logical_and,
        {Expression::operation(Op::logical_not, {Expression::nested(0, at)}, at),
         Expression::operation(Op::logical_not, {Expression::nested(1, b.position)}, b.position)},
        at);
    Formula result = Formula::state_formula(std::move(both));
    result.operands.push_back(std::move(a));
    result.operands.push_back(std::move(b));
    return result;
  }

  // A parenthesised path read by path (probability_path or reward_path); false, and
  // nothing read, where the "(" opens a state formula instead.
  bool in_parentheses_read(Formula& f, bool in_parentheses, void (PropertyParser::*path)(Formula&, bool)) {
    if (!parenthesised_path(in_parentheses)) return false;
    TokenStream::Nesting level(t_);
    t_.next();
    (this->*path)(f, true);
    t_.expect(")");
    return true;
  }

  // "(" path ")" inside the brackets: the ")" matching the next "(" closes the path
  // (a "]" or a legacy filter's "{" follows it, or inside parentheses a ")").
  // Otherwise the "(" opens a state formula, as in [ (x=1) U (y=2) ].
  bool parenthesised_path(bool in_parentheses) const {
    if (!t_.peek().is("(")) return false;
    int depth = 0;
    for (std::size_t ahead = 0;; ++ahead) {
      const Token& token = t_.peek(ahead);
      if (token.kind == Token::Kind::end_of_input) return false;
      if (token.is("(") || token.is("[") || token.is("{")) ++depth;
      if ((token.is(")") || token.is("]") || token.is("}")) && --depth == 0) {
        const Token& after = t_.peek(ahead + 1);
        return token.is(")") && (after.is("]") || after.is("{") || (in_parentheses && after.is(")")));
      }
    }
  }

  void reward_path(Formula& f, bool in_parentheses = false) {
    if (in_parentheses_read(f, in_parentheses, &PropertyParser::reward_path)) return;
    TemporalOperator& op = f.temporal;
    const Token& ahead = t_.peek();
    if (!ahead.is_word("F") && !ahead.is_word("C") && !ahead.is_word("I") && !ahead.is_word("S")) {
      constrained_reward_path(f);
      return;
    }
    const Token& first = t_.next();
    if (first.is_word("F") || first.is_word("C")) discount(op);
    if (first.is_word("F")) {
      op.path = Path::reachability_reward;
      refuse_bounded_reward_path();
      if (op.discount && (starts_temporal_operator() || (t_.peek().is("(") && parenthesised_ltl()))) {
        // Its own error, not LTL's: path_or_ltl would read the path again as LTL without the discount.
        unsupported(t_, t_.peek(), "a discount on a co-safe LTL path (discounts are read on F of a state formula and on C)");
      }
      f.operands.push_back(state_formula());
    } else if (first.is_word("C")) {
      const bool bounded = t_.peek().is("<=") || t_.peek().is("<");
      op.path = bounded ? Path::cumulative_reward : Path::total_reward;
      if (bounded) step_bounds(op);
    } else if (first.is_word("I")) {
      op.path = Path::instantaneous_reward;
      t_.expect("=");
      op.step_bound = bound_expression();
    } else if (first.is_word("S")) {
      op.path = Path::long_run_reward;
    } else {
      t_.fail_expected("F, C, C<=k, I=k or S", first);
    }
  }

  // R [ F<=k phi ] and R [ phi U<=k psi ], refused as PRISM refuses them (the reward
  // until a bounded path is met is not defined where it is not met in time), and
  // before the path is read again as LTL.
  void refuse_bounded_reward_path() {
    const Token& bound = t_.peek();
    if (bound.is("<=") || bound.is("<") || bound.is(">=") || bound.is(">") || bound.is("=") || bound.is("[")) {
      unsupported(t_, bound, "a bounded F or U in a reward (C<=k sums the first k steps' rewards)");
    }
  }

  // {discount=d} after F or C: each step's reward counts d^i at step i. A "{" that
  // opens anything else is an old-style filter's, read after the path.
  void discount(TemporalOperator& op) {
    if (!t_.peek().is("{") || !t_.peek(1).is_word("discount") || !t_.peek(2).is("=")) return;
    t_.next();
    t_.next();
    t_.next();
    op.discount = parse_expression(t_, false);
    t_.expect("}");
  }

  // R [ phi U psi ] (and R [ phi ]): the reward until the path first satisfies phi U psi (co-safe: a
  // path that never does earns infinitely much, as PRISM reads it). Operands: the
  // target psi, then the constraint phi.
  void constrained_reward_path(Formula& f) {
    Formula left = state_formula();
    const Token& u = t_.peek();
    if (u.is("]") || u.is("{")) {  // R [ phi ]: a co-safe path of one state formula, met at once or never (as PRISM)
      f.operands.push_back(std::move(left));
      f.temporal.path = Path::ltl;
      f.temporal.ltl = std::make_shared<const PathFormula>(PathFormula::atom(0));
      return;
    }
    if (!u.is_word("U")) t_.fail_expected("F, C, C<=k, I=k, S or phi U psi", u);
    t_.next();
    refuse_bounded_reward_path();
    f.temporal.path = Path::reachability_reward;
    f.operands.push_back(state_formula());
    f.operands.push_back(std::move(left));
  }

  // The step bounds of F, G, U, W, R and C, each an expression: <=k, <k (as <=k-1),
  // >=k, >k (as >=k+1), =k (both), [a,b]; none for an unbounded operator.
  void step_bounds(TemporalOperator& op) {
    const Token& c = t_.peek();
    auto shifted = [](Expression bound, Op op, SourcePosition at) {
      return Expression::operation(op, {std::move(bound), Expression::integer(1, at)}, at);
    };
    if (c.is("<=") || c.is("<")) {
      t_.next();
      Expression bound = bound_expression();
      const SourcePosition at = bound.position;
      op.step_bound_shifted = c.is("<");
      op.step_bound = c.is("<=") ? std::move(bound) : shifted(std::move(bound), Op::subtract, at);
    } else if (c.is(">=") || c.is(">")) {
      t_.next();
      Expression bound = bound_expression();
      const SourcePosition at = bound.position;
      op.lower_step_bound_shifted = c.is(">");
      op.lower_step_bound = c.is(">=") ? std::move(bound) : shifted(std::move(bound), Op::add, at);
    } else if (c.is("=")) {
      t_.next();
      op.step_bound = bound_expression();
      op.lower_step_bound = op.step_bound;
    } else if (c.is("[")) {
      t_.next();
      op.lower_step_bound = parse_expression(t_, false);
      t_.expect(",");
      op.step_bound = parse_expression(t_, false);
      t_.expect("]");
    }
  }

  // An arithmetic expression: "F<=N+5 x=N" is N+5, and "F<=k (x=1)" is k (see
  // parse_arithmetic).
  Expression bound_expression() {
    const Token& token = t_.peek();
    if (token.kind != Token::Kind::number && token.kind != Token::Kind::identifier && !token.is("(") &&
        !token.is("-")) {
      t_.fail_expected("a step bound", token);
    }
    return parse_arithmetic(t_);
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
  const FileDirectories& directories_;
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

// The RESULT comment on a line, if it holds one: "// RESULT: v", "// RESULT (c=1): v".
std::optional<ExpectedResult> result_comment(std::string_view line) {
  const auto skip_blanks = [&] {
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  };
  skip_blanks();
  if (!line.starts_with("//")) return std::nullopt;
  line.remove_prefix(2);
  skip_blanks();
  if (!line.starts_with("RESULT")) return std::nullopt;
  line.remove_prefix(6);
  skip_blanks();
  ExpectedResult expected;
  if (line.starts_with("(")) {
    const std::size_t close = line.find(')');
    if (close == std::string_view::npos) return std::nullopt;
    for (char c : line.substr(1, close - 1)) {
      if (c != ' ' && c != '\t') expected.constants += c;
    }
    line.remove_prefix(close + 1);
    skip_blanks();
  }
  if (!line.starts_with(":")) return std::nullopt;
  line.remove_prefix(1);
  skip_blanks();
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
  expected.value = std::string(line);
  return expected;
}

// The RESULT comments of lines [from, to) (0-based).
std::vector<ExpectedResult> result_comments(const TextFile& file, std::size_t from, std::size_t to) {
  std::vector<ExpectedResult> found;
  for (std::size_t line = from; line < to && line < file.num_lines(); ++line) {
    if (std::optional<ExpectedResult> expected = result_comment(file.line(line))) found.push_back(std::move(*expected));
  }
  return found;
}

// One statement's tokens, ended where its last token ends. Pre: tokens not empty.
TokenStream statement_stream(const TextFile& file, std::vector<Token> tokens) {
  const Token& last = tokens.back();
  tokens.push_back({Token::Kind::end_of_input, "", last.line, last.column + last.source_length()});
  return TokenStream(file.name(), std::move(tokens));
}

PropertyEntry parse_statement(const TextFile& file, std::vector<Token> tokens, const FileDirectories& directories) {
  PropertyEntry entry;
  entry.text = source_text(file, tokens);
  entry.source = file.name();
  if (tokens.size() > 1 && tokens[0].kind == Token::Kind::string && tokens[1].is(":")) entry.name = tokens[0].text;
  TokenStream stream = statement_stream(file, std::move(tokens));
  try {
    entry.formula = PropertyParser(stream, directories).property();
  } catch (const UnsupportedError& error) {
    entry.error = error.what();
    entry.unsupported = true;
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

std::string directory_of(const std::string& file) { return std::filesystem::path(file).parent_path().string(); }

bool opens(const Token& t) { return t.is("[") || t.is("(") || t.is("{"); }

// A statement whose last token is an operator goes on over the next line: a property
// broken after "&" is one property, not two pieces.
bool continues(const std::vector<Token>& statement) {
  if (statement.empty()) return false;
  const Token& last = statement.back();
  if (last.is_word("U") || last.is_word("W")) return true;
  if (last.kind != Token::Kind::symbol) return false;
  for (std::string_view op : {"&", "|", "=>", "<=>", "+", "-", "*", "/", "^", "=", "!=", "<", "<=", ">", ">=", "?",
                              ":", ",", "!"}) {
    if (last.is(op)) return true;
  }
  return false;
}
bool closes(const Token& t) { return t.is("]") || t.is(")") || t.is("}"); }

// A line that starts with a binary operator goes on with the statement before it, as
// PRISM reads a long conjunction broken before its "&". ("-" and "!" may start a
// statement, "R" a reward property, and "<<" a strategy operator: they do not count.)
bool continues_the_line_before(const Token& first, const Token& second) {
  if (first.is_word("U") || first.is_word("W")) return true;
  if (first.is("<") && second.is("<")) return false;
  if (first.kind != Token::Kind::symbol) return false;
  for (std::string_view op : {"&", "|", "=>", "<=>", "+", "*", "/", "^", "=", "!=", "<", "<=", ">", ">=", "?", ":", ","}) {
    if (first.is(op)) return true;
  }
  return false;
}

}  // namespace

PropertyFile parse_properties(const TextFile& file, const std::string& model_file) {
  const FileDirectories directories{directory_of(file.name()), directory_of(model_file)};
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
  std::size_t comments_from = 0;  // the first line whose RESULT comments no property has taken
  auto flush = [&] {
    if (statement.empty()) return;
    if (statement.front().is_word("const")) {
      result.constants.push_back(parse_constant(file, std::move(statement)));
    } else if (statement.front().is_word("label")) {
      result.labels.push_back(parse_label(file, std::move(statement)));
    } else {
      const std::size_t first_line = statement.front().line, last_line = statement.back().line;
      result.properties.push_back(parse_statement(file, std::move(statement), directories));
      result.properties.back().expected = result_comments(file, comments_from, first_line - 1);
      comments_from = last_line;
    }
    statement.clear();
  };
  // The index of the first token after tokens[i] that is not a line's end (the input's
  // end at the latest).
  const auto next_on_a_line = [&](std::size_t i) {
    while (i + 1 < tokens.size() && tokens[i + 1].kind == Token::Kind::end_of_line) ++i;
    return std::min(i + 1, tokens.size() - 1);
  };
  const auto continues_at = [&](std::size_t i) {
    const std::size_t first = next_on_a_line(i);
    return continues_the_line_before(tokens[first], tokens[std::min(first + 1, tokens.size() - 1)]);
  };
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const Token& token = tokens[i];
    bool line_end = token.kind == Token::Kind::end_of_line && depth == 0 && !continues(statement) && !continues_at(i);
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

PropertyEntry parse_property(const std::string& text, const std::string& source, const std::string& model_file) {
  TextFile file = TextFile::from_string(source, text);
  PropertyFile parsed = parse_properties(file, model_file);
  if (parsed.properties.size() == 1 && parsed.constants.empty() && parsed.labels.empty()) return parsed.properties.front();
  PropertyEntry entry;
  entry.text = text;
  entry.source = source;
  entry.error = parsed.properties.empty() ? source + ": expected a property, found nothing"
                                          : source + ": expected one property, found " +
                                                std::to_string(parsed.properties.size());
  return entry;
}

std::string FileDirectories::resolve(const std::string& path) const {
  const auto replaced = [](std::string text, std::string_view variable, const std::string& directory) {
    for (std::size_t at = text.find(variable); at != std::string::npos; at = text.find(variable, at)) {
      const std::string with = directory.empty() ? "." : directory;
      text.replace(at, variable.size(), with);
      at += with.size();
    }
    return text;
  };
  const std::string expanded = replaced(replaced(path, "$PROPERTY_DIR", properties), "$MODEL_DIR", model);
  if (expanded != path || std::filesystem::path(path).is_absolute() || properties.empty()) return expanded;
  return (std::filesystem::path(properties) / path).string();
}

}  // namespace mdpvi::io
