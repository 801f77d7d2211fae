#pragma once
// PRISM's "system ... endsystem" (io::SystemExpression) as the builder's one rule:
// the commands of an action are taken together by every module that has the action.
//
// A composition says, for each action, which sets of modules move together: in
// (P ||| Q) || R, an action a of all three moves P with R, or Q with R. Each such set
// (a group: per module, the action its commands had before renaming) becomes an
// action of its own, and each module's commands are copied once for every group they
// are in. An action hidden at some level is internal from there up: its groups
// synchronise no more and are named "" (unlabelled), as PRISM's tau. The builder's
// rule then gives the composition's transitions, and the model's default (no system
// block) is not touched.
#include "engine/explore/resolved_model.h"
#include "io/prism_model.h"

namespace mdpvi {

// Rewrites model's commands and actions, and its transition rewards (an item of [a]
// counts on every group named a; one of [] on unlabelled and hidden ones), for the
// composition. Each module must appear in it exactly once. Throws LocatedError.
void compose_system(const io::SystemExpression& system, ResolvedModel& model);

}  // namespace mdpvi
