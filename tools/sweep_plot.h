#pragma once
// --plot FILE.svg|FILE.png: a constant sweep drawn as PRISM's GUI draws an experiment,
// one line per property over the swept constant. gnuplot draws it (Debian's
// gnuplot-nox: a plotting program made for this, run as a child process, with SVG
// and PNG terminals and no display needed); mdpvi writes only the data and the script.
#include "engine/pipeline/check_run.h"

#include <map>
#include <string>

namespace mdpvi::tools {

// The one constant a plot runs over, checked before the build: throws
// std::invalid_argument where the path is not .svg or .png, or where not exactly one
// given constant is a range.
std::string plotted_constant(const std::map<std::string, std::string>& given, const std::string& path);

// The report's numeric results over `constant` into path, one line per property (per
// setting of the other constants, where any were given). Throws std::runtime_error
// where gnuplot cannot be run or fails, or no result is a number.
void plot_sweep(const pipeline::CheckReport& report, const std::string& constant, const std::string& path);

}  // namespace mdpvi::tools
