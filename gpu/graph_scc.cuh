#pragma once
// SCC decomposition on the device (graph_scc.cu), for graph_search.cu's backend.
// Internal to gpu/.
#include "gpu/graph_device.cuh"
#include "gpu/graph_search.h"

namespace mdpvi::gpu::detail {

// Per model state: its SCC's representative (largest state) for states in d_states,
// kOutsideSet elsewhere. Edges only through the rows of d_rows (null: every row).
constexpr std::uint32_t kOutsideSet = 0xfffffffeu;
DeviceArray<std::uint32_t> scc_representatives(const DeviceGraph& g, const unsigned long long* d_states,
                                               const unsigned long long* d_rows, int sm_count, SccWork& work);

// Downloads the representatives, UINT32_MAX outside the set (overwrites d_scc).
void download_representatives(DeviceArray<std::uint32_t>& d_scc, std::uint32_t n, std::uint32_t* representative,
                              int sm_count);

// The representatives put in topological order (gpu/graph_search.h's DeviceSccs).
DeviceSccs topological_sccs(const DeviceGraph& g, const std::uint32_t* d_representative, std::uint32_t num_members,
                            const unsigned long long* d_rows, int sm_count);

}  // namespace mdpvi::gpu::detail
