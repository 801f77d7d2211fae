// The Python module `mdpvi` (pybind11): the pipeline's run (engine/pipeline/check_run.h)
// behind one call, its report as Python objects and each state's values as numpy
// arrays, for scripts, notebooks and learning code, as stormpy serves Storm's users.
//
//   import mdpvi
//   report = mdpvi.check("resend.nm", properties=['Pmax=? [ F "delivered" ]'], constants={"MAX_TRIES": 3})
//   report.properties[0].value, report.properties[0].lower, report.properties[0].upper
#include "engine/model/located_error.h"
#include "engine/pipeline/check_run.h"
#include "engine/pipeline/memory_budget.h"
#include "engine/pipeline/option_text.h"
#include "engine/solve/method_requirements.h"
#include "io/jani_reader.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace py = pybind11;

namespace mdpvi::python {

namespace {

// A property's per-state results, as the listener keeps them (before the GIL is back):
// values and bounds where asked, and a scheduler (each state's choice within its
// own, and that choice's action as an index into action_names), or why there is none.
struct StateResults {
  std::vector<double> values, lower, upper;
  std::optional<std::vector<std::uint32_t>> choices, actions;
  std::vector<std::string> action_names;
  std::string no_scheduler;
};

// Keeps each answered property's per-state values, in the order of the report.
class StateValuesKept final : public pipeline::CheckListener {
 public:
  void model_loaded(const SparseMdp&, const pipeline::CheckReport&) override {}
  void property_results(const std::string&, const PropertyResult& result, const SparseMdp& mdp) override {
    pending_.emplace();
    if (result.state_values) keep_values(*result.state_values, mdp.num_states());
    if (result.scheduler) keep_scheduler(*result.scheduler, mdp);
    pending_->no_scheduler = result.no_scheduler;
  }
  void property_answered(const pipeline::CheckReport& report) override {
    kept_.resize(report.properties.size());
    kept_.back() = std::move(pending_);
    pending_.reset();
  }
  std::vector<std::optional<StateResults>>& kept() { return kept_; }

 private:
  void keep_values(const StateValues& v, std::uint32_t states) {
    pending_->values.resize(states);
    for (std::uint32_t s = 0; s < states; ++s) pending_->values[s] = v.number(s);
    if (!v.has_bounds()) return;
    pending_->lower.assign(v.lower_numbers().begin(), v.lower_numbers().end());
    pending_->upper.assign(v.upper_numbers().begin(), v.upper_numbers().end());
  }
  void keep_scheduler(const Scheduler& scheduler, const SparseMdp& mdp) {
    pending_->choices = scheduler.choice;
    if (!mdp.actions) return;
    pending_->action_names = mdp.actions->names;
    auto& actions = pending_->actions.emplace(mdp.num_states());
    for (std::uint32_t s = 0; s < mdp.num_states(); ++s) actions[s] = mdp.actions->of_choice[scheduler.row(mdp, s)];
  }

  std::optional<StateResults> pending_;
  std::vector<std::optional<StateResults>> kept_;
};

// A constant's value as PRISM's --const reads it: Python's True is "true", 2 is "2",
// 0.5 is "0.5", and a string (a range "1:3", a:s:b) is passed as it is.
std::string constant_text(const py::handle& value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value) || py::isinstance<py::str>(value)) {
    return py::str(value).cast<std::string>();
  }
  throw py::type_error("a constant's value must be a bool, int, float or str, found " +
                       py::str(py::type::of(value)).cast<std::string>());
}

// The path of a str or an os.PathLike.
std::string path_text(const py::object& path) { return py::module_::import("os").attr("fspath")(path).cast<std::string>(); }

// The vector handed to numpy without a copy: the array owns it.
template <typename T>
py::array_t<T> as_array(std::vector<T>&& values) {
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule release(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(static_cast<py::ssize_t>(owned->size()), owned->data(), release);
}

template <typename T>
py::object array_or_none(std::optional<std::vector<T>>& values) {
  return values ? py::object(as_array(std::move(*values))) : py::none();
}

// A result's value as Python has it: a bool, a float, or a (low, high) range; None
// where the property was not answered.
py::object value_of(const std::optional<PropertyValue>& value) {
  if (!value) return py::none();
  switch (value->kind) {
    case PropertyValue::Kind::boolean: return py::bool_(value->truth);
    case PropertyValue::Kind::number: return py::float_(value->number);
    case PropertyValue::Kind::range: return py::make_tuple(value->number, value->upper);
    case PropertyValue::Kind::pareto: {
      py::list points;
      for (const std::vector<double>& point : value->points) points.append(py::tuple(py::cast(point)));
      return std::move(points);
    }
  }
  return py::none();
}

py::object optional_float(const std::optional<double>& number) {
  return number ? py::object(py::float_(*number)) : py::none();
}

py::dict property_dict(const pipeline::PropertyOutcome& outcome, std::optional<StateResults>& states) {
  py::dict d;
  d["property"] = outcome.property;
  d["value"] = value_of(outcome.value);
  d["lower"] = outcome.value ? optional_float(outcome.value->lower_bound) : py::none();
  d["upper"] = outcome.value ? optional_float(outcome.value->upper_bound) : py::none();
  d["text"] = outcome.value ? py::object(py::str(to_text(*outcome.value))) : py::none();
  d["scope"] = outcome.value ? py::object(py::str(outcome.value->scope)) : py::none();
  d["error"] = outcome.error.empty() ? py::none() : py::object(py::str(outcome.error));
  d["constants"] = outcome.constants;
  d["time_s"] = outcome.time_s;
  const auto nonempty = [](std::vector<double>& v) {
    return v.empty() ? std::optional<std::vector<double>>() : std::optional<std::vector<double>>(std::move(v));
  };
  std::optional<std::vector<double>> values, lower, upper;
  std::optional<std::vector<std::uint32_t>> choices, actions;
  if (states) {
    values = nonempty(states->values), lower = nonempty(states->lower), upper = nonempty(states->upper);
    choices = std::move(states->choices), actions = std::move(states->actions);
  }
  d["state_values"] = array_or_none(values);
  d["state_lower"] = array_or_none(lower);
  d["state_upper"] = array_or_none(upper);
  d["scheduler"] = array_or_none(choices);
  d["scheduler_actions"] = array_or_none(actions);
  d["action_names"] = states && actions ? py::cast(states->action_names) : py::none();
  d["no_scheduler"] = states && !choices && !states->no_scheduler.empty() ? py::object(py::str(states->no_scheduler)) : py::none();
  return d;
}

py::dict model_dict(const pipeline::ModelSummary& m) {
  py::dict d;
  d["source"] = m.source;
  d["type"] = to_string(m.type);
  d["states"] = m.states;
  d["choices"] = m.choices;
  d["transitions"] = m.transitions;
  d["initial_states"] = m.initial_states;
  d["build_s"] = m.build_s;
  d["graph_on"] = m.graph_on;
  return d;
}

// mdpvi.check's work: the options from its arguments, the run without the GIL, the
// report as plain Python objects (wrapped by the module's Python side).
py::dict check(const py::object& model, const std::vector<std::string>& properties,
               const std::optional<py::object>& properties_file, const py::dict& constants, const std::string& method,
               double epsilon, bool relative, const std::string& solver, bool state_values, bool schedulers,
               std::optional<std::size_t> gpu_memory_limit, const std::string& gpu_system, int threads, int gpus) {
  pipeline::CheckOptions options;
  options.model_file = path_text(model);
  if (properties_file) options.properties_file = path_text(*properties_file);
  options.inline_properties = properties;
  for (const auto& [name, value] : constants) options.constants[py::str(name).cast<std::string>()] = constant_text(value);
  options.solver.method = pipeline::method_named(method);  // std::invalid_argument: Python's ValueError
  options.solver.stop.epsilon = epsilon;
  options.solver.stop.criterion = relative ? ConvergenceCriterion::relative : ConvergenceCriterion::absolute;
  options.solver.stop.max_sweeps = default_max_sweeps(options.solver.method);
  options.device.solver = pipeline::solver_named(solver);
  options.keep_state_values = state_values;
  options.keep_schedulers = schedulers;
  options.keep_actions = schedulers;
  options.device.memory_limit_bytes = gpu_memory_limit;
  options.device.system_storage = pipeline::system_storage_named(gpu_system);
  options.threads = threads;
  if (gpus < 0) throw py::value_error("gpus must be 0 (all) or more, found " + std::to_string(gpus));
  options.device.gpus = static_cast<std::uint32_t>(gpus);
  options.memory_limit = pipeline::default_memory_limit();
  if (!options.properties_file && options.inline_properties.empty() && !io::is_jani_path(*options.model_file)) {
    throw py::value_error("give properties, a properties_file, or both (a JANI model has its own)");
  }
  StateValuesKept listener;
  pipeline::CheckReport report;
  {
    py::gil_scoped_release unlocked;
    report = pipeline::run_check(options, &listener);
  }
  listener.kept().resize(report.properties.size());
  py::list outcomes;
  for (std::size_t i = 0; i < report.properties.size(); ++i) {
    outcomes.append(property_dict(report.properties[i], listener.kept()[i]));
  }
  py::dict result;
  result["model"] = model_dict(report.model);
  result["properties"] = outcomes;
  result["method"] = report.settings.method;
  result["epsilon"] = report.settings.epsilon;
  result["criterion"] = report.settings.criterion;
  return result;
}

}  // namespace

}  // namespace mdpvi::python

PYBIND11_MODULE(_mdpvi, m) {
  m.doc() = "mdpvi's model checking pipeline (the module mdpvi wraps it)";
  static py::exception<mdpvi::LocatedError> bad_input(m, "BadInput", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const mdpvi::LocatedError& error) {
      bad_input(error.what());
    }
  });
  m.def("check", &mdpvi::python::check, py::arg("model"), py::arg("properties"), py::arg("properties_file"),
        py::arg("constants"), py::arg("method"), py::arg("epsilon"), py::arg("relative"), py::arg("solver"),
        py::arg("state_values"), py::arg("schedulers"), py::arg("gpu_memory_limit"), py::arg("gpu_system"),
        py::arg("threads"), py::arg("gpus"));
  m.attr("__version__") = MDPVI_VERSION;
}
