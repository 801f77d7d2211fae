// The Pareto front's vertices by weighted sums (engine/check/pareto_front.h), against
// finite point sets whose best point for any weights is known by brute force: every
// vertex found is one of the set's, and for random positive weights the best of the
// vertices is the best of the set (no vertex missed). Two to four dimensions, ties,
// points in a plane, one point, and fronts past the limit.
#include "engine/check/pareto_front.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

namespace mdpvi {
namespace {

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

// The oracle of a finite set: its first point maximising the weighted sum.
WeightedBest best_of(const std::vector<ParetoPoint>& set) {
  return [&set](const std::vector<double>& w) -> std::optional<ParetoPoint> {
    if (set.empty()) return std::nullopt;
    return *std::max_element(set.begin(), set.end(), [&](const auto& a, const auto& b) { return dot(w, a) < dot(w, b); });
  };
}

void expect_front_of(const std::vector<ParetoPoint>& set, std::size_t d, std::mt19937& rng) {
  const std::vector<ParetoPoint> front = pareto_vertices(d, best_of(set));
  ASSERT_FALSE(front.empty());
  for (const ParetoPoint& v : front) EXPECT_NE(std::find(set.begin(), set.end(), v), set.end());
  std::uniform_real_distribution<double> weight(0.001, 1.0);
  for (int k = 0; k < 300; ++k) {
    std::vector<double> w(d);
    for (double& x : w) x = weight(rng);
    double in_front = -1e300, in_set = -1e300;
    for (const ParetoPoint& v : front) in_front = std::max(in_front, dot(w, v));
    for (const ParetoPoint& p : set) in_set = std::max(in_set, dot(w, p));
    EXPECT_NEAR(in_front, in_set, 1e-9) << "dimensions " << d;
  }
}

TEST(ParetoFront, RandomSetsInTwoToFourDimensions) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> coordinate(0.0, 10.0);
  for (std::size_t d = 2; d <= 4; ++d) {
    for (int trial = 0; trial < 12; ++trial) {
      std::vector<ParetoPoint> set(3 + rng() % 25, ParetoPoint(d));
      for (ParetoPoint& p : set) {
        for (double& x : p) x = coordinate(rng);
        if (trial % 2 == 0) continue;
        // Else near a sphere, where most points are vertices of the front.
        const double norm = std::sqrt(dot(p, p)), radius = 9.0 + coordinate(rng) / 10.0;
        for (double& x : p) x *= radius / norm;
      }
      expect_front_of(set, d, rng);
    }
  }
}

// Points on a sphere's positive part: every one is a vertex of the front.
TEST(ParetoFront, EveryPointOfACurvedFrontIsFound) {
  std::mt19937 rng(11);
  std::vector<ParetoPoint> set{{0, 0, 1}};  // the pole, once
  for (int i = 0; i <= 6; ++i) {
    for (int j = 0; j < 6; ++j) {
      const double a = 1.5707963267948966 * i / 6, b = 1.5707963267948966 * j / 6;
      set.push_back({std::cos(a) * std::cos(b), std::sin(a) * std::cos(b), std::sin(b)});
    }
  }
  const std::vector<ParetoPoint> front = pareto_vertices(3, best_of(set));
  EXPECT_EQ(front.size(), set.size());
  expect_front_of(set, 3, rng);
}

// Degenerate sets: ties in a coordinate, points in a plane (an objective repeated),
// one point, dominated points only beside one best.
TEST(ParetoFront, DegenerateSets) {
  std::mt19937 rng(13);
  expect_front_of({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}, {0.5, 0.5, 0.5}}, 3, rng);
  std::vector<ParetoPoint> plane;
  for (int i = 0; i < 8; ++i) {
    const double x = rng() % 100 / 10.0, y = rng() % 100 / 10.0;
    plane.push_back({x, y, x});  // the third objective is the first
  }
  expect_front_of(plane, 3, rng);
  EXPECT_EQ(pareto_vertices(3, best_of({{2, 2, 2}})).size(), 1u);
  const std::vector<ParetoPoint> dominated{{1, 1, 1, 1}, {0.5, 1, 0.2, 1}, {1, 0, 1, 0}};
  const std::vector<ParetoPoint> one{{1, 1, 1, 1}};
  EXPECT_EQ(pareto_vertices(4, best_of(dominated)), one);
}

TEST(ParetoFront, EmptySetsAndFrontsPastTheLimitAreRefused) {
  EXPECT_THROW(pareto_vertices(3, best_of({})), std::runtime_error);
  std::vector<ParetoPoint> circle;
  for (int i = 0; i <= 40; ++i) circle.push_back({std::cos(1.5707963267948966 * i / 40), std::sin(1.5707963267948966 * i / 40)});
  EXPECT_EQ(pareto_vertices(2, best_of(circle)).size(), circle.size());
  EXPECT_THROW(pareto_vertices(2, best_of(circle), 10), std::runtime_error);
}

}  // namespace
}  // namespace mdpvi
