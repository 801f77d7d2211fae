#include "engine/check/pareto_front.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace mdpvi {

namespace {

// Added to every weight asked for: among a face's points, the oracle then gives one
// that no other point of the set dominates (a vertex of the front, not of its border).
constexpr double kTieBreak = 1e-7;
// Past this many dot products the facets are too many to enumerate here.
constexpr double kMostWork = 4e9;

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

// A hyperplane normal.x = offset that every known point lies on or below, normal >= 0
// summing to 1: an upper facet of the hull of the known points with the directions
// down every axis (its downward closure).
struct Facet {
  std::vector<double> normal;
  double offset = 0.0;
};

// The vector orthogonal to each of rows (d - 1 of them, each of d), summing to 1 and
// with no negative entry, where the rows have rank d - 1 and such a vector exists.
std::optional<std::vector<double>> upward_normal(std::vector<std::vector<double>> rows, std::size_t d) {
  double scale = 1.0;
  for (const auto& row : rows) {
    for (double x : row) scale = std::max(scale, std::abs(x));
  }
  std::vector<std::size_t> pivots;  // per row of the reduced echelon form, its pivot's column
  std::size_t r = 0;
  for (std::size_t c = 0; c < d && r < rows.size(); ++c) {
    std::size_t best = r;
    for (std::size_t i = r + 1; i < rows.size(); ++i) {
      if (std::abs(rows[i][c]) > std::abs(rows[best][c])) best = i;
    }
    if (std::abs(rows[best][c]) <= 1e-12 * scale) continue;
    std::swap(rows[r], rows[best]);
    const double p = rows[r][c];
    for (double& x : rows[r]) x /= p;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (i == r || rows[i][c] == 0.0) continue;
      const double f = rows[i][c];
      for (std::size_t k = 0; k < d; ++k) rows[i][k] -= f * rows[r][k];
    }
    pivots.push_back(c);
    ++r;
  }
  if (r + 1 != d) return std::nullopt;
  std::size_t free = 0;
  while (free < pivots.size() && pivots[free] == free) ++free;  // the one column without a pivot
  std::vector<double> w(d, 0.0);
  w[free] = 1.0;
  for (std::size_t i = 0; i < pivots.size(); ++i) w[pivots[i]] = -rows[i][free];
  double sum = 0.0, largest = 0.0;
  for (double x : w) {
    sum += x;
    largest = std::max(largest, std::abs(x));
  }
  if (sum < 0.0) {
    for (double& x : w) x = -x;
    sum = -sum;
  }
  for (double& x : w) {
    // Below the linear program's rounding a component counts as 0, not as facing down.
    if (x < -1e-9 * largest) return std::nullopt;  // a facet facing down some axis
    x = std::max(x, 0.0);
  }
  if (sum <= 1e-12 * largest) return std::nullopt;
  for (double& x : w) x /= sum;
  return w;
}

class FrontSearch {
 public:
  FrontSearch(std::size_t d, const WeightedBest& best, std::size_t most_vertices, double tolerance)
      : d_(d), best_(best), most_vertices_(most_vertices), tolerance_(tolerance) {}

  std::vector<ParetoPoint> run() {
    for (std::size_t i = 0; i < d_; ++i) {
      std::vector<double> axis(d_, 0.0);
      axis[i] = 1.0;
      const std::optional<ParetoPoint> p = ask(axis);
      if (!p) throw std::runtime_error("multi(...): no scheduler meets its bounds, so the query has no value");
      add(*p);
    }
    std::size_t first_new = 0;
    while (first_new < points_.size()) {
      const std::size_t end = points_.size();
      for (const Facet& facet : new_facets(first_new)) refine(facet);
      first_new = end;
    }
    std::sort(points_.begin(), points_.end());
    return points_;
  }

 private:
  std::optional<ParetoPoint> ask(const std::vector<double>& normal) {
    std::vector<double> weights = normal;
    for (double& w : weights) w = (w + kTieBreak) / (1.0 + kTieBreak * static_cast<double>(d_));
    return best_(weights);
  }

  // The points' largest coordinate (at least 1) times the tolerance, kept as points come.
  double absolute_tolerance() const { return tolerance_ * scale_; }

  void add(const ParetoPoint& p) {
    const double tolerance = absolute_tolerance();
    for (const ParetoPoint& q : points_) {
      bool same = true;
      for (std::size_t i = 0; i < d_ && same; ++i) same = std::abs(p[i] - q[i]) <= tolerance;
      if (same) return;
    }
    if (points_.size() >= most_vertices_) {
      throw std::runtime_error("multi(...): the Pareto front has more than " + std::to_string(most_vertices_) +
                               " vertices");
    }
    points_.push_back(p);
    for (double x : p) scale_ = std::max(scale_, std::abs(x));
  }

  // Asks for the best point in the facet's direction: past it, a new vertex; else the
  // facet is the front's.
  void refine(const Facet& facet) {
    const double tolerance = absolute_tolerance();
    for (const Facet& known : settled_) {
      bool same = std::abs(known.offset - facet.offset) <= tolerance;
      for (std::size_t i = 0; i < d_ && same; ++i) same = std::abs(known.normal[i] - facet.normal[i]) <= 1e-9;
      if (same) return;
    }
    const std::optional<ParetoPoint> r = ask(facet.normal);
    if (r && dot(facet.normal, *r) > facet.offset + tolerance) {
      add(*r);
    } else {
      settled_.push_back(facet);
    }
  }

  // The upper facets through a known point from first_new on: each spanned by some
  // points (at least one, the last of them new) and some axes (the hull's directions
  // down those axes), d - 1 independent directions in all.
  std::vector<Facet> new_facets(std::size_t first_new) {
    std::vector<Facet> facets;
    const std::size_t known = points_.size();
    for (std::size_t axes = 0; axes < d_; ++axes) {
      std::vector<std::size_t> chosen_axes;
      for_each_subset(d_, axes, chosen_axes, 0, [&] {
        std::vector<std::size_t> chosen_points;
        for (std::size_t last = first_new; last < known; ++last) {
          chosen_points.assign(1, last);
          for_each_subset(last, d_ - axes - 1, chosen_points, 0, [&] {
            if (std::optional<Facet> f = facet_of(chosen_points, chosen_axes)) facets.push_back(std::move(*f));
          });
        }
      });
    }
    return facets;
  }

  std::optional<Facet> facet_of(const std::vector<std::size_t>& chosen_points, const std::vector<std::size_t>& axes) {
    work_ += static_cast<double>(points_.size() * d_);
    if (work_ > kMostWork) throw std::runtime_error("multi(...): the Pareto front's facets are too many to enumerate");
    const ParetoPoint& origin = points_[chosen_points[0]];
    std::vector<std::vector<double>> rows;
    for (std::size_t j = 1; j < chosen_points.size(); ++j) {
      std::vector<double> row(d_);
      for (std::size_t i = 0; i < d_; ++i) row[i] = points_[chosen_points[j]][i] - origin[i];
      rows.push_back(std::move(row));
    }
    for (std::size_t axis : axes) {
      std::vector<double> row(d_, 0.0);
      row[axis] = 1.0;
      rows.push_back(std::move(row));
    }
    std::optional<std::vector<double>> normal = upward_normal(std::move(rows), d_);
    if (!normal) return std::nullopt;
    Facet facet{std::move(*normal), 0.0};
    facet.offset = dot(facet.normal, origin);
    const double tolerance = absolute_tolerance();
    for (const ParetoPoint& q : points_) {
      if (dot(facet.normal, q) > facet.offset + tolerance) return std::nullopt;  // not supporting
    }
    return facet;
  }

  // Calls visit with each way of appending `count` increasing numbers below n, each at
  // least from, to chosen (restored after).
  template <typename Visit>
  static void for_each_subset(std::size_t n, std::size_t count, std::vector<std::size_t>& chosen, std::size_t from,
                              const Visit& visit) {
    if (count == 0) {
      visit();
      return;
    }
    for (std::size_t i = from; i + count <= n; ++i) {
      chosen.push_back(i);
      for_each_subset(n, count - 1, chosen, i + 1, visit);
      chosen.pop_back();
    }
  }

  std::size_t d_;
  const WeightedBest& best_;
  std::size_t most_vertices_;
  double tolerance_;
  std::vector<ParetoPoint> points_;
  double scale_ = 1.0;  // the points' largest coordinate, at least 1
  std::vector<Facet> settled_;
  double work_ = 0.0;
};

}  // namespace

std::vector<ParetoPoint> pareto_vertices(std::size_t dimensions, const WeightedBest& best, std::size_t most_vertices,
                                         double tolerance) {
  return FrontSearch(dimensions, best, most_vertices, tolerance).run();
}

}  // namespace mdpvi
