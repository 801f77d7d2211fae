#include "tools/report.h"

#include "engine/pipeline/constant_sweep.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace mdpvi::tools {

namespace {

std::string seconds(double s) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f s", s);
  return buffer;
}

nlohmann::json number_json(double value) {
  if (!std::isfinite(value)) return format_number(value);  // "Infinity", "NaN": JSON has neither
  return value + 0.0;                                        // -0 as 0
}

nlohmann::json value_json(const PropertyValue& value) {
  switch (value.kind) {
    case PropertyValue::Kind::boolean: return value.truth;
    case PropertyValue::Kind::number: return number_json(value.number);
    case PropertyValue::Kind::range: return nlohmann::json::array({number_json(value.number), number_json(value.upper)});
    case PropertyValue::Kind::pareto: {
      nlohmann::json points = nlohmann::json::array();
      for (const std::vector<double>& point : value.points) {
        nlohmann::json p = nlohmann::json::array();
        for (double x : point) p.push_back(number_json(x));
        points.push_back(std::move(p));
      }
      return points;
    }
  }
  return nullptr;
}

// Whether a numerical solve ran: a property decided by the graph analysis alone
// (P>0, P>=1, ...) has maybe-states but no SCCs and no method.
bool solved(const NumericResult& d) { return d.sccs.num_sccs > 0; }

// ", gpu": where the graph searches ran, where they ran at all.
std::string ran_on(const std::string& where) { return where.empty() ? "" : ", " + where; }

// null for an empty text (nothing to say), else the text.
nlohmann::json text_or_null(const std::string& text) { return text.empty() ? nlohmann::json() : nlohmann::json(text); }

// "Value iteration: ", "Interval iteration: ".
std::string method_heading(Method method) {
  std::string text = to_string(method);
  text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
  return text + ": ";
}

// ", 3 by policy iteration" where a method that chooses per SCC (or chunk) chose it.
std::string by_policy_iteration(const SolveReport& solve) {
  const bool chooses = solve.method == Method::policy_iteration || solve.method == Method::automatic;
  return chooses ? ", " + std::to_string(solve.stats.policy_sccs) + " by policy iteration" : "";
}

}  // namespace

void write_model_text(std::ostream& out, const pipeline::ModelSummary& model) {
  out << "Model: " << model.source << "\n"
      << "Type:        " << to_string(model.type) << "\n"
      << "States:      " << model.states << " (" << model.initial_states << " initial)\n"
      << "Choices:     " << model.choices << "\n"
      << "Transitions: " << model.transitions << "\n";
  if (model.deadlocks > 0) out << "Deadlocks:   " << model.deadlocks << " (given self-loops)\n";
  out << "Time to read model: " << seconds(model.parse_s) << "\n";
  if (model.build_s > 0.0) out << "Time to build model: " << seconds(model.build_s) << "\n";
}

void write_property_text(std::ostream& out, const pipeline::PropertyOutcome& outcome) {
  out << "\nModel checking: " << outcome.property << "\n";
  if (!outcome.constants.empty()) out << "Constants: " << pipeline::describe(outcome.constants) << "\n";
  if (!outcome.error.empty()) {
    out << "Error: " << outcome.error << "\n";
    return;
  }
  if (const auto& d = outcome.computation) {
    if (d->reward) {
      out << "Graph analysis: " << d->qualitative.yes << " target, " << d->qualitative.no << " infinite, " << d->qualitative.maybe
          << " to solve (" << seconds(d->qualitative.time_s) << ran_on(d->qualitative.ran_on) << ")\n";
    } else {
      out << "Prob0/Prob1: " << d->qualitative.yes << " yes, " << d->qualitative.no << " no, " << d->qualitative.maybe << " maybe ("
          << seconds(d->qualitative.time_s) << ran_on(d->qualitative.ran_on) << ")\n";
    }
    if (d->step_bounded) {
      out << (d->uniformised ? "Uniformisation: " : "Step-bounded: ") << d->solve.stats.iterations
          << " iterations over " << d->qualitative.maybe << " states (" << seconds(d->solve.time_s) << ")\n";
    } else if (solved(*d)) {
      out << "SCCs of maybe-states: " << d->sccs.num_sccs << ", " << d->solve.stats.iterated_sccs << " iterated"
          << by_policy_iteration(d->solve) << ", largest " << d->solve.stats.largest_scc << " states (" << seconds(d->sccs.time_s)
          << ran_on(d->sccs.ran_on) << ")\n"
          << (d->long_run ? "Stationary distributions and the rest: " : method_heading(d->solve.method))
          << d->solve.stats.iterations << " iterations (" << seconds(d->solve.time_s) << ")"
          << "\n";
    }
    if (!d->solve.device.empty()) {
      std::size_t on_gpu = 0, by_levels = 0, built_there = 0, views = 0, indexed = 0;
      int devices = 1;
      double upload = 0, solve = 0, download = 0;
      for (const ChunkReport& c : d->solve.chunks) {
        on_gpu += c.on_gpu;
        by_levels += c.by_levels;
        built_there += c.built_on_device;
        views += c.device_view;
        indexed += c.on_gpu && c.value_bytes < sizeof(double);
        devices = std::max(devices, c.devices);
        upload += c.upload_s;
        solve += c.solve_s;
        download += c.download_s;
      }
      out << "GPU (" << d->solve.device << "): " << d->solve.chunks.size() << " chunks, " << on_gpu << " on the GPU ("
          << by_levels << " by levels" << (views ? ", a view on the GPU" : built_there ? ", built on the GPU" : "")
          << (indexed ? ", " + std::to_string(indexed) + " with indexed values" : std::string())
          << (devices > 1 ? ", each level's SCCs over " + std::to_string(devices) + " GPUs" : std::string()) << "); upload "
          << seconds(upload) << ", solve " << seconds(solve) << ", download " << seconds(download) << "\n";
    } else if (d->solve.chunks.size() > 1) {
      out << "Chunks: " << d->solve.chunks.size() << " (solved on the CPU)\n";
    }
  }
  if (!outcome.value->listing.empty()) out << outcome.value->listing;
  out << "Result: " << to_text(*outcome.value) << " (" << outcome.value->scope << ")\n"
      << "Time for model checking: " << seconds(outcome.time_s) << "\n";
}

namespace {

nlohmann::json chunk_json(const ChunkReport& c) {
  nlohmann::json chunk = {{"states", c.states},         {"rows", c.rows}, {"entries", c.entries}, {"sccs", c.sccs},
                          {"footprint_bytes", c.footprint_bytes}, {"on_gpu", c.on_gpu},
                          {"iterations", c.iterations}, {"upload_s", c.upload_s},
                          {"solve_s", c.solve_s},       {"download_s", c.download_s},
                          {"bytes_per_sweep", c.bytes_per_sweep}, {"by_levels", c.by_levels}, {"built_on_device", c.built_on_device},
                          {"device_view", c.device_view}, {"cut_on_device", c.cut_on_device}, {"devices", c.devices}, {"gpu", c.gpu},
                          {"group_lanes", c.group_lanes}, {"lanes_over_rows", c.lanes_over_rows}};
  if (c.on_gpu) chunk["value_bytes"] = c.value_bytes;
  // By levels, a sweep moves a level's states, not the chunk's: no bandwidth.
  if (c.on_gpu && !c.by_levels && c.iterations > 0 && c.solve_s > 0) {
    chunk["sweep_s"] = c.solve_s / static_cast<double>(c.iterations);
    chunk["achieved_bandwidth_bytes_per_s"] = static_cast<double>(c.bytes_per_sweep) * c.iterations / c.solve_s;
  }
  return chunk;
}

}  // namespace

nlohmann::json to_json(const pipeline::CheckReport& report) {
  const pipeline::ModelSummary& m = report.model;
  nlohmann::json model = {{"source", m.source},
                          {"type", m.type == ModelType::mdp ? "mdp" : m.type == ModelType::dtmc ? "dtmc" : "ctmc"},
                          {"states", m.states},
                          {"choices", m.choices},
                          {"transitions", m.transitions},
                          {"initial_states", m.initial_states},
                          {"reward_structures", m.reward_structures},
                          {"deadlocks", m.deadlocks},
                          {"state_table_bytes", m.state_table_bytes},
                          {"peak_bytes_after_build", m.peak_bytes_after_build},
                          {"resident_bytes_before_build", m.resident_bytes_before_build},
                          {"parse_time_s", m.parse_s},
                          {"build_time_s", m.build_s},
                          {"graph_time_s", m.graph_s},
                          {"graph_on", text_or_null(m.graph_on)},
                          {"graph_device_bytes", m.graph_device_bytes},
                          {"peak_bytes_after_graph", m.peak_bytes_after_graph}};
  // The build's peak per state and per transition, the measure of a model's footprint.
  const auto per = [](std::size_t bytes, std::uint64_t count) {
    const std::optional<double> each = pipeline::bytes_each(bytes, count);
    return each ? nlohmann::json(*each) : nlohmann::json();
  };
  model["host_bytes_per_state"] = per(m.peak_bytes_after_build, m.states);
  model["host_bytes_per_transition"] = per(m.peak_bytes_after_build, m.transitions);
  model["graph_device_bytes_per_transition"] = per(m.graph_device_bytes, m.transitions);
  nlohmann::json properties = nlohmann::json::array();
  for (const pipeline::PropertyOutcome& p : report.properties) {
    nlohmann::json entry = {{"property", p.property},
                            {"constants", pipeline::constants_of(p, report.settings)},
                            {"result", p.value ? value_json(*p.value) : nlohmann::json()},
                            {"result_scope", p.value ? nlohmann::json(p.value->scope) : nlohmann::json()},
                            {"listing", p.value && !p.value->listing.empty() ? nlohmann::json(p.value->listing) : nlohmann::json()},
                            {"error", text_or_null(p.error)},
                            {"iterations", p.computation ? nlohmann::json(p.computation->solve.stats.iterations) : nlohmann::json()},
                            {"time_s", p.time_s}};
    // Every entry has every key (null where a property has no such stage), so that a
    // failed or graph-decided property reads like the others.
    for (const char* key : {"converged", "method", "lower", "upper", "phases", "qualitative_on", "sccs_on", "states",
                            "sccs", "device", "memory"}) {
      entry[key] = nullptr;
    }
    entry["chunks"] = nlohmann::json::array();
    if (const auto& d = p.computation) {
      entry["converged"] = d->solve.stats.converged;
      entry["method"] = solved(*d) ? nlohmann::json(to_string(d->solve.method)) : nlohmann::json();
      if (p.value && p.value->lower_bound) {
        entry["lower"] = number_json(*p.value->lower_bound);
        entry["upper"] = number_json(*p.value->upper_bound);
      }
      entry["phases"] = {{"qualitative_s", d->qualitative.time_s}, {"scc_s", d->sccs.time_s}, {"solve_s", d->solve.time_s}};
      // The process's peak at the end of each stage; the system's and the solve's where
      // they ran.
      entry["memory"] = {{"qualitative_peak_host_bytes", d->qualitative.peak_host_bytes}};
      if (solved(*d)) {
        entry["memory"]["system_peak_host_bytes"] = d->sccs.peak_host_bytes;
        entry["memory"]["solve_peak_host_bytes"] = d->solve.peak_host_bytes;
        entry["memory"]["solve_peak_device_bytes"] = d->solve.peak_device_bytes;
        entry["memory"]["solve_device_in_use_bytes"] = d->solve.device_in_use_bytes;
      }
      entry["qualitative_on"] = text_or_null(d->qualitative.ran_on);
      entry["sccs_on"] = text_or_null(d->sccs.ran_on);
      entry["states"] = {{"yes", d->qualitative.yes}, {"no", d->qualitative.no}, {"maybe", d->qualitative.maybe}};
      entry["sccs"] = {{"count", d->sccs.num_sccs}, {"iterated", d->solve.stats.iterated_sccs},
                       {"by_policy_iteration", d->solve.stats.policy_sccs}, {"largest", d->solve.stats.largest_scc},
                       {"max_iterations", d->solve.stats.max_scc_iterations}};
      entry["device"] = text_or_null(d->solve.device);
      for (const ChunkReport& c : d->solve.chunks) entry["chunks"].push_back(chunk_json(c));
    }
    properties.push_back(std::move(entry));
  }
  const pipeline::RunSettings& s = report.settings;
  nlohmann::json settings = {{"constants", s.constants},   {"method", s.method},
                             {"epsilon", s.epsilon},       {"criterion", s.criterion},
                             {"max_iterations", s.max_iterations}, {"version", s.version}};
  return {{"settings", std::move(settings)}, {"model", std::move(model)}, {"properties", std::move(properties)}};
}

void write_sweep_tables(std::ostream& out, const pipeline::CheckReport& report) {
  std::vector<std::string> order;  // the properties, as first answered
  for (const pipeline::PropertyOutcome& p : report.properties) {
    if (!p.constants.empty() && std::find(order.begin(), order.end(), p.property) == order.end()) order.push_back(p.property);
  }
  for (const std::string& property : order) {
    out << "\nResults of the sweep: " << property << "\n";
    bool header = false;
    for (const pipeline::PropertyOutcome& p : report.properties) {
      if (p.property != property || p.constants.empty()) continue;
      if (!header) {
        for (const auto& [name, value] : p.constants) out << name << "\t";
        out << "Result\n";
        header = true;
      }
      for (const auto& [name, value] : p.constants) out << value << "\t";
      out << (p.value ? to_text(*p.value) : "Error: " + p.error) << "\n";
    }
  }
}

}  // namespace mdpvi::tools
