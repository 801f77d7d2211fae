// The builder's cached way of expanding states (local_transitions.h) against the
// plain way, which evaluates every guard and update in every state: the same model,
// array for array, and the same errors.
#include "reference_instances.h"
#include "same_model.h"

#include "engine/explore/masked_memo.h"
#include "engine/explore/model_builder.h"

#include <set>

namespace mdpvi {
namespace {

SparseMdp build(const ResolvedModel& model, bool cache) { return build_model(model, {cache}).mdp; }

// Builds the model both ways, expects the same model, and returns its state count.
std::uint64_t states_built_either_way(const std::string& text) {
  ResolvedModel model = resolve_model(io::parse_model(io::TextFile::from_string("m.nm", text)), {});
  SparseMdp cached = build(model, true);
  test::expect_same_model(cached, build(model, false));
  return cached.num_states();
}

// Every reference instance (MDPs, DTMCs, rewards, synchronisation of up to ten
// modules) of up to 100,000 states.
TEST(LocalTransitions, ReferenceModelsAreTheSameBuiltEitherWay) {
  if (!test::have_shared()) GTEST_SKIP();
  int compared = 0;
  for (const auto& [name, instance] : test::reference().items()) {
    if (instance.at("states").get<std::uint64_t>() > 100000) continue;
    SCOPED_TRACE(name);
    pipeline::CheckOptions options = test::reference_check(instance);
    ResolvedModel model = resolve_model(io::parse_model(io::TextFile::load(*options.model_file)), options.constants);
    test::expect_same_model(build(model, true), build(model, false));
    ++compared;
  }
  EXPECT_GE(compared, 20);
}

// A module whose local valuations outnumber the cache's capacity (2^16): the cache
// starts afresh and the model is still right.
TEST(LocalTransitions, CacheStartsAfreshPastItsCapacity) {
  EXPECT_EQ(states_built_either_way(
                "mdp\nmodule m\n  x : [0..100000];\n  [] x<100000 -> 0.5:(x'=x+1) + 0.5:(x'=min(x+2,100000));\n"
                "  [] x>0 -> (x'=x-1);\nendmodule\n"),
            100001u);
}

// An update out of range in a command that never runs (its action is blocked by the
// other module) is no error, either way.
TEST(LocalTransitions, FaultyCommandOfABlockedActionIsNoError) {
  EXPECT_EQ(states_built_either_way("mdp\nmodule m\n  x : [0..1];\n  [a] x=0 -> (x'=2);\n  [] x=0 -> (x'=1);\nendmodule\n"
                                    "module n\n  y : [0..1];\n  [a] y=1 -> (y'=0);\nendmodule\n"),
            2u);
}

// Synchronising modules each with several updates and probabilities that depend on
// the state: products in the plain way's order.
TEST(LocalTransitions, SynchronisedProductsInThePlainOrder) {
  EXPECT_GT(states_built_either_way(
                "mdp\nglobal g : [0..3];\n"
                "module m\n  x : [0..3];\n  [a] x<3 -> 1/(x+2):(x'=x+1) + (1-1/(x+2)):(x'=0);\n  [a] x>0 -> (x'=x-1);\n"
                "  [b] true -> (g'=min(g+1,3));\n  [] x=3 -> (x'=0)&(g'=0);\nendmodule\n"
                "module n\n  y : [0..2];\n  [a] y<2 -> 0.25:(y'=y+1) + 0.75:(y'=y);\n  [a] y=2 -> (y'=0);\n"
                "  [b] y>0 -> (y'=y-1);\nendmodule\n"),
            20u);
}

// More actions than a word of bits (the enabled-action sets span two words): module
// m enables about a third of its 70 actions in each state, n has every second one in
// its alphabet and o every fifth, and each blocks some.
TEST(LocalTransitions, SeventyActionsInThePlainOrder) {
  std::string m = "module m\n  x : [0..9];\n", n = "module n\n  y : [0..3];\n", o = "module o\n  z : [0..1];\n";
  for (int k = 0; k < 70; ++k) {
    const std::string action = "[a" + std::to_string(k) + "] ", number = std::to_string(k);
    m += "  " + action + "mod(x+" + number + ",3)=0 -> (x'=mod(x+" + number + ",10));\n";
    if (k % 2 == 0) n += "  " + action + "y!=" + std::to_string(k % 4) + " -> (y'=mod(y+1,4));\n";
    if (k % 5 == 0) o += "  " + action + "z=0 -> (z'=1);\n";
  }
  o += "  [] z=1 -> (z'=0);\n";
  EXPECT_EQ(states_built_either_way("mdp\n" + m + "endmodule\n" + n + "endmodule\n" + o + "endmodule\n"), 80u);
}

}  // namespace
}  // namespace mdpvi

namespace mdpvi {
namespace {

// The memo behind the caches: the value computed for the first state with given
// masked bits, for every state with those bits; computed again only after it starts
// afresh past its capacity.
TEST(MaskedMemo, ValuesPerMaskedBitsAcrossRestarts) {
  const std::vector<std::uint64_t> mask{0x00FF00FF00FFFFFFull, 0x3ull};
  MaskedMemo<std::uint64_t> memo(mask);
  auto f = [&](const std::uint64_t* s) { return ((s[0] & mask[0]) * 31) ^ (s[1] & mask[1]); };
  std::uint64_t state[2], computed = 0;
  std::uint64_t x = 12345;
  for (int i = 0; i < 300000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    state[0] = i < 100000 ? (x % 500) | (x & 0xFF00000000000000ull) : x;  // first few keys, then many
    state[1] = x >> 3;
    std::uint64_t value = memo.find(state, [&] {
      ++computed;
      return f(state);
    });
    ASSERT_EQ(value, f(state)) << i;
  }
  EXPECT_EQ(memo.misses(), computed);
  EXPECT_LE(computed, 200000u + 2000u);  // the first 100,000 states have 2,000 keys
  EXPECT_GT(computed, 200000u - 2000u);            // random 48 bits hardly repeat
}

// A mask of few bits (14 here, in four runs over two words, one at the top of a word)
// is looked up directly: one miss per distinct masked valuation, the right value each time.
TEST(MaskedMemo, NarrowMaskOneMissPerValuation) {
  const std::vector<std::uint64_t> mask{0xF00000000000F00Full, 0x30ull};
  MaskedMemo<std::uint64_t> memo(mask);
  auto f = [&](const std::uint64_t* s) { return ((s[0] & mask[0]) * 31) ^ (s[1] & mask[1]); };
  std::set<std::pair<std::uint64_t, std::uint64_t>> valuations;
  std::uint64_t state[2], computed = 0;
  std::uint64_t x = 777;
  for (int i = 0; i < 100000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    state[0] = x;
    state[1] = x >> 17;
    valuations.emplace(state[0] & mask[0], state[1] & mask[1]);
    std::uint64_t value = memo.find(state, [&] {
      ++computed;
      return f(state);
    });
    ASSERT_EQ(value, f(state)) << i;
  }
  EXPECT_EQ(computed, valuations.size());
  EXPECT_EQ(memo.misses(), computed);
}

// A copy of a direct memo (its table is lazily committed memory, copied by hand) knows
// what the original knew, and the two learn apart afterwards.
TEST(MaskedMemo, CopyKnowsWhatTheOriginalKnew) {
  const std::vector<std::uint64_t> mask{0xFFull};
  MaskedMemo<std::uint64_t> memo(mask);
  std::uint64_t state = 0, computed = 0;
  auto find = [&](MaskedMemo<std::uint64_t>& m, std::uint64_t s) {
    state = s;
    return m.find(&state, [&] {
      ++computed;
      return s * 7;
    });
  };
  for (std::uint64_t s = 0; s < 10; ++s) EXPECT_EQ(find(memo, s), s * 7);
  MaskedMemo<std::uint64_t> copy = memo;
  computed = 0;
  for (std::uint64_t s = 0; s < 10; ++s) EXPECT_EQ(find(copy, s + 256), s * 7);  // same low byte: known
  EXPECT_EQ(computed, 0u);
  EXPECT_EQ(find(copy, 10), 70u);
  EXPECT_EQ(computed, 1u);
  EXPECT_EQ(find(memo, 10), 70u);  // the original learns it on its own
  EXPECT_EQ(computed, 2u);
}

// A wide mask has no direct table: its memo copies as well (copying the empty table
// once asked the kernel for a mapping of no bytes, and threw).
TEST(MaskedMemo, CopyOfAWideMaskMemoKnowsWhatTheOriginalKnew) {
  const std::vector<std::uint64_t> mask{0xFFFFFull};  // 20 bits, past kMostDirectBits
  MaskedMemo<std::uint64_t> memo(mask);
  std::uint64_t state = 5, computed = 0;
  EXPECT_EQ(memo.find(&state, [&] { return ++computed, std::uint64_t{35}; }), 35u);
  MaskedMemo<std::uint64_t> copy = memo;
  EXPECT_EQ(copy.find(&state, [&] { return ++computed, std::uint64_t{0}; }), 35u);
  EXPECT_EQ(computed, 1u);
}

}  // namespace
}  // namespace mdpvi
