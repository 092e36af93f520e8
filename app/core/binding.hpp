// A lesson's bindings: the one list of what its panel's controls set (Lesson::bindings()).
// Presets, plans, the soak's random parameters and the restart after a GPU fault set parameters
// through them, so each goes through the same range check and the same reaction as the slider or
// combo it stands for.
//
//   std::vector<ParamBinding> bindings() override {
//     auto changed = [this] { onConfigChanged(); };
//     return {bindParam(kLaunchN, cfg_.n, changed),
//             bindToggle(kAutoBlocksChoice, cfg_.autoBlocks, changed),
//             bindChoice(kColourByChoice, colourBy_, {{"block", ColourBy::Block}, ...})};
//   }
#pragma once

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/params.hpp"

namespace cudalab {

// One parameter as the lesson's panel edits it, read and written by its ParamSpec's id. Saved
// parameters, the soak test and the restart after a GPU fault go through these, so a value is
// set exactly as the slider sets it, followed by what the panel does after a change.
//
// A choice (a combo box, radio buttons, a check box) is a binding too: its value is the index of
// the chosen option, and `choices` names the options, so presets and plans write "float64" rather
// than 1 (its spec's range is 0 to the number of options less one; the registry test checks it).
struct ParamBinding {
  const ParamSpec* spec;
  std::function<double()> get;
  std::function<void(double)> set;     // assign (rounded for integer specs), then react
  std::function<void(double)> assign;  // only assign: before the lesson is first shown
  std::vector<std::string> choices;    // a choice's option names; empty for a number
  // Where the lesson's start depends on the machine (without a GPU the precision lesson shows
  // the CPU's float32 in place of the GPU's): the value it starts with here. Empty: the spec's.
  std::function<double()> defaultNow = {};
};

// A binding onto a field of any arithmetic type; `changed` is what the panel calls after its
// slider moved (nothing when the lesson reads the field afresh each time).
template <class T>
ParamBinding bindParam(const ParamSpec& spec, T& field, std::function<void()> changed = {}) {
  return {&spec,
          [&field] { return static_cast<double>(field); },
          [&spec, &field, changed](double v) {
            field = static_cast<T>(spec.integer ? std::round(v) : v);
            if (changed) changed();
          },
          [&spec, &field](double v) { field = static_cast<T>(spec.integer ? std::round(v) : v); },
          {}};
}

// A binding onto a choice among `options` (name, value), in the order the panel lists them. A
// field holding a value that is not among them reads as the first option.
template <class T>
ParamBinding bindChoice(const ParamSpec& spec, T& field,
                        std::vector<std::pair<std::string, T>> options,
                        std::function<void()> changed = {}) {
  auto opts = std::make_shared<const std::vector<std::pair<std::string, T>>>(std::move(options));
  ParamBinding b{
      &spec,
      [&field, opts] {
        for (size_t i = 0; i < opts->size(); ++i)
          if ((*opts)[i].second == field) return static_cast<double>(i);
        return 0.0;
      },
      [&field, opts, changed](double v) {
        field = (*opts)[static_cast<size_t>(std::lround(v))].second;
        if (changed) changed();
      },
      [&field, opts](double v) { field = (*opts)[static_cast<size_t>(std::lround(v))].second; },
      {}};
  for (const auto& o : *opts)
    b.choices.push_back(o.first);
  return b;
}

// A choice the lesson keeps in its own way (a variant that sets several fields): `index` reads
// which option is chosen, `choose` makes option i the chosen one.
inline ParamBinding bindChoiceBy(const ParamSpec& spec, std::vector<std::string> names,
                                 std::function<int()> index, std::function<void(int)> choose,
                                 std::function<void()> changed = {}) {
  return {&spec, [index] { return static_cast<double>(index()); },
          [choose, changed](double v) {
            choose(static_cast<int>(std::lround(v)));
            if (changed) changed();
          },
          [choose](double v) { choose(static_cast<int>(std::lround(v))); }, std::move(names)};
}

// A check box: the choice between "off" and "on" (presets may also write false and true).
inline ParamBinding bindToggle(const ParamSpec& spec, bool& field,
                               std::function<void()> changed = {}) {
  return bindChoice<bool>(spec, field, {{"off", false}, {"on", true}}, std::move(changed));
}

}  // namespace cudalab
