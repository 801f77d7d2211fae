// The model's probabilities as indices into a table of distinct values
// (engine/model/compact_values.h) against the plain doubles: every read the same bit
// for bit, the fallback past 65,536 distinct values, and every reference instance
// answered alike from both forms, state by state, on the CPU and on the GPU.
#include "engine/model/compact_values.h"
#include "engine/model/compact_values_builder.h"
#include "engine/pipeline/check_run.h"
#include "gpu/device_solver.h"
#include "reference_instances.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <stdexcept>

namespace mdpvi {
namespace {

// n values drawn from `distinct` different ones (0.0 and -0.0 among them: told apart).
PodVector<double> drawn_values(std::size_t n, std::size_t distinct, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<double> pool = {0.0, -0.0, 1.0, 0.5};
  while (pool.size() < distinct) pool.push_back(std::ldexp(static_cast<double>(rng() | 1u), -33) + static_cast<double>(pool.size()));
  pool.resize(distinct);
  PodVector<double> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = pool[i < distinct ? i : rng() % distinct];
  return values;
}

void expect_reads_alike(const CompactValues& compact, const PodVector<double>& plain) {
  ASSERT_EQ(compact.size(), plain.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    ASSERT_EQ(std::bit_cast<std::uint64_t>(compact[i]), std::bit_cast<std::uint64_t>(plain[i])) << "entry " << i;
  }
  compact.visit([&](auto read) {
    for (std::size_t i = 0; i < plain.size(); ++i) {
      ASSERT_EQ(std::bit_cast<std::uint64_t>(read(i)), std::bit_cast<std::uint64_t>(plain[i])) << "entry " << i;
    }
  });
  const PodVector<double> expanded = compact.expanded();
  ASSERT_EQ(expanded.size(), plain.size());
  for (std::size_t i = 0; i < plain.size(); ++i) ASSERT_EQ(std::bit_cast<std::uint64_t>(expanded[i]), std::bit_cast<std::uint64_t>(plain[i]));
}

// Odd sizes, one value, the 1-byte limit and just past it, the 2-byte limit and just
// past it (plain), over arrays large enough to be split among threads.
TEST(CompactValues, CompressedIsEquivalentToRef) {
  struct Case {
    std::size_t n, distinct;
    unsigned index_bytes;
  };
  for (const Case c : {Case{0, 0, 1}, Case{1, 1, 1}, Case{7, 3, 1}, Case{5'000'003, 256, 1}, Case{300'001, 257, 2},
                       Case{9'000'001, 65536, 2}, Case{200'003, 65537, 0}}) {
    SCOPED_TRACE("n=" + std::to_string(c.n) + " distinct=" + std::to_string(c.distinct));
    const PodVector<double> plain = drawn_values(c.n, c.distinct, static_cast<std::uint32_t>(c.n));
    CompactValues compact{PodVector<double>(plain)};
    EXPECT_EQ(compact.compress(), c.index_bytes != 0);
    EXPECT_EQ(compact.index_bytes(), c.index_bytes);
    if (c.index_bytes != 0) {
      EXPECT_EQ(compact.table().size(), c.distinct);
      EXPECT_EQ(compact.plain_data(), nullptr);
      EXPECT_EQ(compact.bytes(), c.n * c.index_bytes + c.distinct * sizeof(double));
    }
    expect_reads_alike(compact, plain);
    EXPECT_TRUE(compact == CompactValues(PodVector<double>(plain)));
  }
}

TEST(CompactValues, EqualityIsBitwiseAndWritingAfterCompressionThrows) {
  CompactValues a{0.5, 0.25, 0.0};
  CompactValues b{0.5, 0.25, -0.0};
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(b.compress());
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(a.compress());
  EXPECT_TRUE(a == CompactValues({0.5, 0.25, 0.0}));
  EXPECT_THROW(a.push_back(1.0), std::logic_error);
  EXPECT_THROW(a.plain(), std::logic_error);
  EXPECT_TRUE(a.compress()) << "compressing again is harmless";
}

// Made wave by wave (the builder's way) against the plain array read back, and alike
// to the whole array compressed in one go (form and table): waves of odd sizes and
// empty ones; one bit (2 distinct), one byte (from bits in a wave that starts mid-word
// with 3), two, and past kMostDistinct in a later wave (plain from there, the earlier
// waves expanded).
TEST(CompactValuesBuilder, WaveByWaveIsEquivalentToRef) {
  for (std::size_t distinct : {1u, 2u, 3u, 200u, 256u, 257u, 5000u, 65536u, 70000u}) {
    SCOPED_TRACE("distinct=" + std::to_string(distinct));
    const std::size_t n = 3 * distinct + 1'000'003;
    // Reversed: each value's one sure occurrence is in the last wave, where the
    // table of 70,000 overflows if no earlier wave made it.
    PodVector<double> plain = drawn_values(n, distinct, static_cast<std::uint32_t>(distinct));
    std::reverse(plain.begin(), plain.end());
    CompactValuesBuilder builder;
    builder.reserve();
    std::size_t done = 0;
    for (std::size_t wave : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{0}, std::size_t{65537}, n}) {
      wave = std::min(wave, n - done);
      std::copy(plain.begin() + done, plain.begin() + done + wave, builder.wave_scratch(wave));
      builder.append_wave(wave);
      done += wave;
      EXPECT_EQ(builder.size(), done);
    }
    EXPECT_EQ(builder.plain_mode(), distinct > CompactValues::kMostDistinct);
    const CompactValues made = builder.finish();
    CompactValues whole{PodVector<double>(plain)};
    whole.compress();
    EXPECT_EQ(made.index_bytes(), whole.index_bytes());
    EXPECT_EQ(made.table(), whole.table()) << "the table sorted alike";
    expect_reads_alike(made, plain);
    EXPECT_EQ(builder.size(), 0u) << "finish leaves the builder empty";
  }
}

// While at most two values are distinct the builder holds a bit a value (a leader
// model's probabilities, 0.5 and 1, and a per-choice reward of 0 or 1: the largest
// arrays at a large build's peak), whatever the waves' sizes; a third value widens it.
TEST(CompactValuesBuilder, TwoValuesTakeABitEach) {
  constexpr std::size_t kWave = 10'007, kWaves = 500;
  CompactValuesBuilder builder;
  builder.reserve();
  PodVector<double> all;
  std::mt19937 rng(7);
  for (std::size_t w = 0; w < kWaves; ++w) {
    double* scratch = builder.wave_scratch(kWave);
    for (std::size_t i = 0; i < kWave; ++i) all.push_back(scratch[i] = rng() % 3 == 0 ? 0.5 : 1.0);
    builder.append_wave(kWave);
  }
  const std::size_t n = kWave * kWaves;
  EXPECT_LE(builder.bytes(), n / 8 + 8 + kWave * sizeof(double) + 2 * sizeof(double))
      << "the indices, the last wave's scratch and the table";
  std::copy_n(all.begin(), kWave, builder.wave_scratch(kWave));
  builder.wave_scratch(kWave)[kWave / 2] = 0.25;
  all.insert(all.end(), all.begin(), all.begin() + kWave);
  all[n + kWave / 2] = 0.25;
  builder.append_wave(kWave);
  EXPECT_GE(builder.bytes(), n + kWave) << "a byte a value from the third";
  const CompactValues made = builder.finish();
  EXPECT_EQ(made.index_bytes(), 1u);
  expect_reads_alike(made, all);
}

// Every state's value, bounds and answer of every property, per run.
class StateValueRecorder : public pipeline::CheckListener {
 public:
  void model_loaded(const SparseMdp&, const pipeline::CheckReport&) override {}
  void property_results(const std::string& property, const PropertyResult& result, const SparseMdp&) override {
    std::vector<double>& all = values[property];
    if (!result.state_values) return;
    const StateValues& v = *result.state_values;
    for (const StateNumbers* part : {&v.numbers, &v.lower, &v.upper}) all.insert(all.end(), part->begin(), part->end());
  }
  void property_answered(const pipeline::CheckReport&) override {}
  std::map<std::string, std::vector<double>> values;
};

void expect_bitwise_equal(const std::vector<double>& a, const std::vector<double>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(std::bit_cast<std::uint64_t>(a[i]), std::bit_cast<std::uint64_t>(b[i])) << what << ", entry " << i;
  }
}

void expect_same_answers(SolverKind solver) {
  for (const auto& [name, expected] : test::reference().items()) {
    SCOPED_TRACE(name);
    StateValueRecorder plain_run, compact_run;
    pipeline::CheckOptions options = test::reference_check(expected);
    options.keep_state_values = true;
    options.device.solver = solver;
    options.compact_values = false;
    const pipeline::CheckReport plain = pipeline::run_check(options, &plain_run);
    options.compact_values = true;
    const pipeline::CheckReport compact = pipeline::run_check(options, &compact_run);
    ASSERT_EQ(plain.properties.size(), compact.properties.size());
    for (std::size_t i = 0; i < plain.properties.size(); ++i) {
      const pipeline::PropertyOutcome &a = plain.properties[i], &b = compact.properties[i];
      EXPECT_EQ(a.error, b.error) << a.property;
      ASSERT_EQ(a.value.has_value(), b.value.has_value()) << a.property;
      if (a.value) {
        EXPECT_EQ(std::bit_cast<std::uint64_t>(a.value->number), std::bit_cast<std::uint64_t>(b.value->number)) << a.property;
        EXPECT_EQ(a.value->truth, b.value->truth) << a.property;
      }
    }
    ASSERT_EQ(plain_run.values.size(), compact_run.values.size());
    for (const auto& [property, values] : plain_run.values) expect_bitwise_equal(values, compact_run.values[property], property);
  }
}

TEST(CompactModel, ReferenceInstancesAnswerAlikeFromPlainAndIndexedValuesOnTheCpu) {
  if (!test::have_shared()) GTEST_SKIP();
  expect_same_answers(SolverKind::cpu);
}

TEST(CompactModel, ReferenceInstancesAnswerAlikeFromPlainAndIndexedValuesOnTheGpu) {
  if (!gpu::free_device_memory()) GTEST_SKIP() << "no CUDA device";
  if (!test::have_shared()) GTEST_SKIP();
  expect_same_answers(SolverKind::gpu);
}

}  // namespace
}  // namespace mdpvi
