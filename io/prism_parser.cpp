#include "io/prism_model.h"
#include "io/token_stream.h"

namespace mdpvi::io {

namespace {

// The model's labels may be used in its guards, updates, rewards, labels, formulas and
// init block (PRISM 4.8), not in constants or variables' ranges and initial values.
constexpr bool kLabelsAllowed = true;

class ModelParser {
 public:
  ModelParser(const TextFile& file) : t_(file.name(), tokenize(file, /*keep_line_ends=*/false)) { model_.file = file.name(); }

  ModelDescription parse() {
    if (t_.at_end()) t_.fail(t_.peek(), "the file holds no model (expected mdp, dtmc or ctmc, constants and modules)");
    while (!t_.at_end()) declaration();
    return std::move(model_);
  }

 private:
  void declaration() {
    const Token& token = t_.peek();
    if (token.is_word("mdp") || token.is_word("nondeterministic")) return set_type(ModelType::mdp);
    if (token.is_word("dtmc") || token.is_word("probabilistic")) return set_type(ModelType::dtmc);
    if (token.is_word("ctmc") || token.is_word("stochastic")) return set_type(ModelType::ctmc);
    if (token.is_word("pta") || token.is_word("smg") || token.is_word("ctmdp") || token.is_word("lts") ||
        token.is_word("popomdp") || token.is_word("pomdp")) {
      t_.fail(token, "model type '" + token.text + "' is not supported (mdpvi checks MDPs, DTMCs and CTMCs)");
    }
    if (token.is_word("const")) return constant();
    if (token.is_word("formula")) return formula();
    if (token.is_word("global")) {
      t_.next();
      model_.globals.push_back(variable());
      return;
    }
    if (token.is_word("module")) return module();
    if (token.is_word("label")) return label();
    if (token.is_word("rewards")) return rewards();
    if (token.is_word("init")) {
      t_.next();
      if (model_.init) t_.fail(token, "a second init ... endinit block");
      model_.init = parse_expression(t_, kLabelsAllowed);
      t_.expect_word("endinit");
      return;
    }
    if (token.is_word("system")) {
      t_.next();
      if (model_.system) t_.fail(token, "a second system ... endsystem block");
      model_.system = parallel_composition();
      t_.expect_word("endsystem");
      return;
    }
    t_.fail_expected("a declaration (mdp, dtmc, ctmc, const, formula, global, module, label, rewards, init, system)", token);
  }

  // --- system ... endsystem: hiding and renaming bind tighter than the parallel
  // compositions, which are read left to right.
  SystemExpression parallel_composition() {
    SystemExpression left = hidden_or_renamed();
    while (t_.peek().is("|")) {
      count_system_operator();
      t_.next();
      SystemExpression node;
      node.position = left.position;  // where the composition starts
      if (t_.accept("[")) {
        node.kind = SystemExpression::Kind::restricted;
        node.actions = action_list("]");
        t_.expect("|");
      } else {
        t_.expect("|");
        node.kind = t_.accept("|") ? SystemExpression::Kind::asynchronous : SystemExpression::Kind::alphabetised;
      }
      node.operands.push_back(std::move(left));
      node.operands.push_back(hidden_or_renamed());
      left = std::move(node);
    }
    return left;
  }

  SystemExpression hidden_or_renamed() {
    SystemExpression e = system_operand();
    while (t_.peek().is("/") || t_.peek().is("{")) {
      count_system_operator();
      SystemExpression node;
      node.position = TokenStream::position(t_.peek());
      if (t_.accept("/")) {
        node.kind = SystemExpression::Kind::hiding;
        t_.expect("{");
        node.actions = action_list("}");
      } else {
        t_.expect("{");
        node.kind = SystemExpression::Kind::renaming;
        do {
          std::string from = t_.expect_identifier("an action to rename").text;
          t_.expect("<");
          t_.expect("-");
          node.renaming.emplace_back(std::move(from), t_.expect_identifier("its new name").text);
        } while (t_.accept(","));
        t_.expect("}");
      }
      node.operands.push_back(std::move(e));
      e = std::move(node);
    }
    return e;
  }

  SystemExpression system_operand() {
    if (t_.peek().is("(")) {
      const TokenStream::Nesting nesting(t_);
      t_.next();
      SystemExpression inner = parallel_composition();
      t_.expect(")");
      return inner;
    }
    const Token& name = t_.expect_identifier("a module name");
    SystemExpression e;
    e.module = name.text;
    e.position = TokenStream::position(name);
    return e;
  }

  // Each operator nests the tree one level deeper, which what reads it walks recursively.
  void count_system_operator() {
    constexpr int kMostOperators = 10000;
    if (++system_operators_ > kMostOperators) {
      t_.fail(t_.peek(), "more than " + std::to_string(kMostOperators) + " operators in system ... endsystem; mdpvi stops there");
    }
  }

  // "a, b, c" then the closing symbol.
  std::vector<std::string> action_list(std::string_view close) {
    std::vector<std::string> actions;
    do {
      actions.push_back(t_.expect_identifier("an action").text);
    } while (t_.accept(","));
    t_.expect(close);
    return actions;
  }

  void set_type(ModelType type) {
    const Token& token = t_.next();
    if (model_.type) t_.fail(token, "the model type is declared twice");
    model_.type = type;
  }

  void constant() {
    t_.next();
    ConstantDeclaration c;
    if (t_.accept_word("int")) {
      c.type = ValueType::integer;
    } else if (t_.accept_word("double")) {
      c.type = ValueType::real;
    } else if (t_.accept_word("bool")) {
      c.type = ValueType::boolean;
    }
    const Token& name = t_.expect_identifier("a constant name");
    c.name = name.text;
    c.position = TokenStream::position(name);
    if (t_.accept("=")) c.value = parse_expression(t_, false);
    t_.expect(";");
    model_.constants.push_back(std::move(c));
  }

  void formula() {
    t_.next();
    const Token& name = t_.expect_identifier("a formula name");
    t_.expect("=");
    model_.formulas.push_back({name.text, parse_expression(t_, kLabelsAllowed), TokenStream::position(name)});
    t_.expect(";");
  }

  VariableDeclaration variable() {
    const Token& name = t_.expect_identifier("a variable name");
    VariableDeclaration v;
    v.name = name.text;
    v.position = TokenStream::position(name);
    t_.expect(":");
    if (t_.accept_word("bool")) {
      v.is_bool = true;
    } else {
      t_.expect("[");
      v.low = parse_expression(t_, false);
      t_.expect("..");
      v.high = parse_expression(t_, false);
      t_.expect("]");
    }
    if (t_.accept_word("init")) v.init = parse_expression(t_, false);
    t_.expect(";");
    return v;
  }

  void module() {
    t_.next();
    const Token& name = t_.expect_identifier("a module name");
    ModuleDeclaration m;
    m.name = name.text;
    m.position = TokenStream::position(name);
    if (t_.accept("=")) {
      m.renamed_from = t_.expect_identifier("the name of the module to copy").text;
      t_.expect("[");
      do {
        std::string from = t_.expect_identifier("a name to rename").text;
        t_.expect("=");
        std::string to = t_.expect_identifier("its new name").text;
        m.renaming.emplace_back(std::move(from), std::move(to));
      } while (t_.accept(","));
      t_.expect("]");
      t_.expect_word("endmodule");
      model_.modules.push_back(std::move(m));
      return;
    }
    while (!t_.accept_word("endmodule")) {
      if (t_.peek().is("[")) {
        m.commands.push_back(command());
      } else if (t_.peek().kind == Token::Kind::identifier && t_.peek(1).is(":")) {
        m.variables.push_back(variable());
      } else {
        t_.fail_expected("a variable declaration, a command '[...] guard -> ...;' or 'endmodule'", t_.peek());
      }
    }
    model_.modules.push_back(std::move(m));
  }

  std::string action_in_brackets() {
    t_.expect("[");
    std::string action;
    if (t_.peek().kind == Token::Kind::identifier) action = t_.next().text;
    t_.expect("]");
    return action;
  }

  CommandDeclaration command() {
    CommandDeclaration c;
    c.position = TokenStream::position(t_.peek());
    c.action = action_in_brackets();
    c.guard = parse_expression(t_, kLabelsAllowed);
    t_.expect("->");
    do {
      c.updates.push_back(update());
    } while (t_.accept("+"));
    t_.expect(";");
    return c;
  }

  // "(x'=" starts an assignment; "true" followed by ';' or '+' is the empty update.
  bool at_assignments() const {
    const Token& a = t_.peek();
    if (a.is_word("true")) return t_.peek(1).is(";") || t_.peek(1).is("+");
    return a.is("(") && t_.peek(1).kind == Token::Kind::identifier && (t_.peek(2).is("'=") || t_.peek(2).is("'"));
  }

  UpdateDeclaration update() {
    UpdateDeclaration u;
    SourcePosition at = TokenStream::position(t_.peek());
    if (at_assignments()) {
      u.probability = Expression::integer(1, at);
    } else {
      u.probability = parse_expression(t_, kLabelsAllowed);
      t_.expect(":");
    }
    if (t_.accept_word("true")) return u;
    do {
      t_.expect("(");
      const Token& name = t_.expect_identifier("a variable name");
      if (!t_.accept("'=")) {
        t_.expect("'");
        t_.expect("=");
      }
      u.assignments.push_back({name.text, parse_expression(t_, kLabelsAllowed), TokenStream::position(name)});
      t_.expect(")");
    } while (t_.accept("&"));
    return u;
  }

  void label() {
    t_.next();
    const Token& name = t_.expect_string("a quoted label name");
    t_.expect("=");
    model_.labels.push_back({name.text, parse_expression(t_, kLabelsAllowed), TokenStream::position(name)});
    t_.expect(";");
  }

  void rewards() {
    t_.next();
    RewardDeclaration r;
    if (t_.peek().kind == Token::Kind::string) r.name = t_.next().text;
    while (!t_.accept_word("endrewards")) {
      RewardItem item;
      item.position = TokenStream::position(t_.peek());
      if (t_.peek().is("[")) {
        item.is_transition = true;
        item.action = action_in_brackets();
      }
      item.guard = parse_expression(t_, kLabelsAllowed);
      t_.expect(":");
      item.value = parse_expression(t_, kLabelsAllowed);
      t_.expect(";");
      r.items.push_back(std::move(item));
    }
    model_.rewards.push_back(std::move(r));
  }

  TokenStream t_;
  ModelDescription model_;
  int system_operators_ = 0;
};

}  // namespace

ModelDescription parse_model(const TextFile& file) { return ModelParser(file).parse(); }

}  // namespace mdpvi::io
