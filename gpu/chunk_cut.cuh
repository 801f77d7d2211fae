#pragma once
// A chunk cut on the device from the system's rows as they lie on the host
// (gpu/device_solver.h's SystemRows): the host's copy of each chunk (engine/solve/
// prepared_chunk.h) was most of a chunked solve's time (bench/NOTES.md, issue 39).
// Internal to gpu/.
#include "gpu/cuda_support.cuh"

namespace mdpvi::gpu::detail {

// The cut chunk's arrays, chunk-local as DeviceMatrix takes them.
struct CutChunk {
  DeviceArray<std::uint64_t> row_group_starts{0}, row_starts{0};
  DeviceArray<std::uint32_t> columns{0};
  DeviceValueArray values;
  DeviceArray<double> row_constants{0};  // the rows' b, where the rows came with it
  std::uint64_t entries = 0;  // kept
};

// rows uploaded on the stream and cut there: the row offsets rebased, the entries
// into states before rows.first_state dropped, the others renumbered from it, in
// order. Done when it returns (the raw rows are freed). Throws DeviceError.
CutChunk cut_rows(const SystemRows& rows, cudaStream_t stream, int sm_count);

// b of each iterate of a cut chunk: the rows' b (taken: it becomes the lower's) with
// the corrections' rows replaced, the upper's a copy so corrected. On the stream, done
// when it returns. Throws DeviceError.
struct CorrectedB {
  DeviceArray<double> lower{0}, upper{0};
};
CorrectedB corrected_b(DeviceArray<double>&& row_constants, const RowCorrectionsView& corrections, cudaStream_t stream,
                       int sm_count);

}  // namespace mdpvi::gpu::detail
