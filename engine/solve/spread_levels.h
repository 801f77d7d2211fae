#pragma once
// A chunk spread over several devices (DeviceChunkJob::replicas): the SCCs of one
// height level read only lower levels, so a level with cycles is cut at SCC
// boundaries into a group per device, which the devices iterate at the same time;
// then each group's values go to the other devices (copy_bound_range_to) before
// the next level. These are the pieces that do not depend on the method.
#include "engine/solve/method_policy.h"

#include <cstddef>
#include <functional>
#include <vector>

namespace mdpvi {

// Level's SCCs cut into at most parts groups of consecutive SCCs, balanced by
// states (a cut falls at the first SCC end past each share), each a segment of its
// own in chunk-local states (chunk_first: the chunk's first state in the system).
// Fewer groups where the level has fewer SCCs; none empty. Pre: parts >= 1.
std::vector<LevelSegment> split_level(const MaybeSystem& system, const LevelSegment& level, std::uint64_t chunk_first,
                                      std::size_t parts);

// The chunk's job on each device that holds it: job itself (without replicas) first,
// then one per replica.
std::vector<DeviceChunkJob> jobs_on_each_device(const DeviceChunkJob& job);

// f(i) for every i in [0, n), at the same time, one thread each (each waits on its
// own device); rethrows the first exception once all have ended.
void on_each(std::size_t n, const std::function<void(std::size_t)>& f);

}  // namespace mdpvi
