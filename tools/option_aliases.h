#pragma once
// PRISM's and Storm's spellings of mdpvi's options, accepted where they do not clash:
// "-const", "-prop", "-exportstrat file:type=actions" (PRISM), "--constants",
// "--exportscheduler", "--precision", "--explicit-drn FILE" (Storm), ... become
// mdpvi's own before the command line is parsed. --help lists mdpvi's names only.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mdpvi::tools {

// The arguments (argv[1..]) with every alias replaced by mdpvi's spelling. PRISM's
// choices of engine and numerical method (-ex, -sparse, -gs, -lp, -valiter, ...), which
// mdpvi makes itself, are dropped; their spellings go to ignored, where given.
// -s, -m and -h (PRISM's sparse, MTBDD and hybrid engines) are dropped too; "-h" alone
// beside a command stays the help flag.
std::vector<std::string> resolve_option_aliases(const std::vector<std::string>& arguments,
                                                std::vector<std::string>* ignored = nullptr);

// Why a switch resolve_option_aliases dropped is dropped, for the note printed.
std::string why_ignored(std::string_view name);

// The first of PRISM's switches that ask for what mdpvi does not do (-param: parametric
// model checking), with why and what to do instead; none where there is none.
std::optional<std::string> refused_prism_switch(const std::vector<std::string>& arguments);

}  // namespace mdpvi::tools
