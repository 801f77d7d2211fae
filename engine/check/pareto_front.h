#pragma once
// The Pareto front of a convex set of points in d dimensions (every objective to
// maximise), known only through an oracle that gives, for a weight vector w >= 0, a point
// of the set maximising w.x. Its vertices are found by weighted sums alone, the inner
// approximation refined facet by facet: the set's best point in the direction of each
// upper facet of the hull of what is known either lies past the facet (a new vertex)
// or shows the facet to be the front's. This is the weighted-sum scheme of Forejt,
// Kwiatkowska and Parker ("Pareto curves for probabilistic model checking", ATVA 2012)
// with its choice of weights made exact (the facets' normals, as in Benson's outer
// approximation), so that it ends with the exact front of a polytope.
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

namespace mdpvi {

using ParetoPoint = std::vector<double>;

// The set's best point for the weights (each >= 0, summing to 1; the oracle may break
// ties itself), or nothing where the set is empty.
using WeightedBest = std::function<std::optional<ParetoPoint>(const std::vector<double>& weights)>;

// The front's vertices (each optimal for some weights with no zero), sorted. Throws
// std::runtime_error where the set is empty, or where the front has more than
// most_vertices vertices. tolerance: what counts as past a facet, relative to the
// points' largest coordinate (at least 1).
std::vector<ParetoPoint> pareto_vertices(std::size_t dimensions, const WeightedBest& best,
                                         std::size_t most_vertices = 4096, double tolerance = 1e-9);

}  // namespace mdpvi
