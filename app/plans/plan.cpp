// Lesson plans: reading and finding them; see plan.hpp.
#include "plans/plan.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/embedded.hpp"
#include "plans/json_file.hpp"
#include "core/i18n.hpp"

namespace cudalab::embedded {
extern const EmbeddedFile kPlanFiles[];
extern const int kPlanFiles_count;
}  // namespace cudalab::embedded

namespace cudalab {

namespace fs = std::filesystem;

namespace {

// A text field of `j`: its value, "" when absent, a sentence when it is not text.
std::string textField(const nlohmann::json& j, const char* key, const std::string& where,
                      std::vector<std::string>& problems) {
  if (!j.contains(key)) return {};
  if (j[key].is_string()) return j[key].get<std::string>();
  problems.push_back(trf("%s: \"%s\" is not text, so it is left out.", where.c_str(), key));
  return {};
}

}  // namespace

PlanRead readPlan(const std::string& text, const std::string& file, PresetStore& presets,
                  const LessonLookup& find) {
  PlanRead out;
  auto refuse = [&](const std::string& why) {
    out.problems.insert(out.problems.begin(), trf("%s is not a lesson plan cudalab can open: %s",
                                                  file.c_str(), why.c_str()));
    out.plan.reset();
    return out;
  };
  Result<nlohmann::json> parsed = readVersionedJson(text, kPlanFormat, kPlanVersion);
  if (!parsed) return refuse(parsed.status().message());
  const nlohmann::json& j = *parsed;
  LessonPlan plan;
  plan.file = file;
  const std::string thePlan = tr("the plan");
  plan.title = textField(j, "title", thePlan, out.problems);
  if (plan.title.empty()) plan.title = fs::path(file).stem().string();
  plan.course = textField(j, "course", thePlan, out.problems);
  plan.description = textField(j, "description", thePlan, out.problems);
  const std::string reader = trf("cudalab's plans %d", kPlanVersion);
  warnUnknownFields(j, {"format", "version", "title", "course", "description", "steps"}, thePlan,
                    reader, out.warnings);
  if (!j.contains("steps") || !j["steps"].is_array()) return refuse(tr("it has no list of steps."));
  int number = 0;
  for (const nlohmann::json& s : j["steps"]) {
    ++number;
    std::string where = trf("step %d", number);
    if (!s.is_object()) {
      out.problems.push_back(trf("%s is not an object, so it is left out.", where.c_str()));
      continue;
    }
    LessonPlanStep step;
    step.title = textField(s, "title", where, out.problems);
    if (!step.title.empty()) where += " (\"" + step.title + "\")";
    step.lesson = textField(s, "lesson", where, out.problems);
    Lesson* lesson = step.lesson.empty() ? nullptr : find(step.lesson);
    if (!lesson) {
      out.problems.push_back(
          step.lesson.empty()
              ? trf("%s names no lesson, so it is left out.", where.c_str())
              : trf("%s is for the lesson \"%s\", which does not exist (see `cudalab list`); it "
                    "is left out.",
                    where.c_str(), step.lesson.c_str()));
      continue;
    }
    if (step.title.empty()) step.title = lesson->info().title;
    step.preset = textField(s, "preset", where, out.problems);
    if (!step.preset.empty()) {
      // A preset file named by a relative path is found beside the plan.
      std::string presetRef = step.preset;
      std::error_code ec;
      if (fs::path(presetRef).extension() == ".json" && fs::path(presetRef).is_relative() &&
          fs::is_regular_file(fs::path(file).parent_path() / presetRef, ec))
        presetRef = (fs::path(file).parent_path() / presetRef).string();
      Result<Preset> p = presets.find(step.lesson, presetRef);
      if (p) {
        step.values = p->values;
        step.preset = p->name;
      } else {
        out.problems.push_back(where + ": " + p.status().message());
        step.preset.clear();
      }
    }
    if (s.contains("parameters")) {
      ParamRead r = readParameters(s["parameters"], *lesson, where + "'s parameters");
      for (ParamValue& v : r.values) {
        // The step's own values go on top of the preset's.
        auto it = std::find_if(step.values.begin(), step.values.end(),
                               [&](const ParamValue& x) { return x.id == v.id; });
        if (it != step.values.end())
          it->value = v.value;
        else
          step.values.push_back(std::move(v));
      }
      out.problems.insert(out.problems.end(), r.problems.begin(), r.problems.end());
      out.warnings.insert(out.warnings.end(), r.warnings.begin(), r.warnings.end());
    }
    step.action = textField(s, "action", where, out.problems);
    if (!step.action.empty()) {
      const std::vector<std::string> ids = lesson->actionIds();
      if (std::find(ids.begin(), ids.end(), step.action) == ids.end()) {
        std::string list;
        for (const std::string& a : ids)
          list += (list.empty() ? "" : ", ") + a;
        out.problems.push_back(
            trf("%s: the lesson %s has no action \"%s\" (its actions: %s), so "
                "the step runs nothing.",
                where.c_str(), step.lesson.c_str(), step.action.c_str(),
                list.empty() ? tr("none") : list.c_str()));
        step.action.clear();
      }
    }
    step.panel = textField(s, "panel", where, out.problems);
    step.question = textField(s, "question", where, out.problems);
    step.note = textField(s, "note", where, out.problems);
    warnUnknownFields(
        s, {"title", "lesson", "preset", "parameters", "action", "panel", "question", "note"},
        where, reader, out.warnings);
    plan.steps.push_back(std::move(step));
  }
  if (plan.steps.empty()) return refuse(tr("none of its steps can be shown."));
  out.plan = std::move(plan);
  return out;
}

std::vector<ShippedFile> shippedPlanFiles() {
  std::vector<ShippedFile> out;
  for (int i = 0; i < embedded::kPlanFiles_count; ++i)
    out.push_back({embedded::kPlanFiles[i].name, embedded::kPlanFiles[i].text});
  return out;
}

PlanRead loadPlan(const std::string& nameOrFile, PresetStore& presets, const LessonLookup& find) {
  for (const ShippedFile& f : shippedPlanFiles())
    if (fs::path(f.name).stem() == nameOrFile || f.name == nameOrFile)
      return readPlan(f.text, std::string("assets/plans/") + f.name, presets, find);
  std::error_code ec;
  if (!fs::is_regular_file(nameOrFile, ec)) {
    PlanRead out;
    std::string names;
    for (const ShippedFile& f : shippedPlanFiles())
      names += (names.empty() ? "" : ", ") + fs::path(f.name).stem().string();
    out.problems.push_back(fs::exists(nameOrFile, ec)
                               ? trf("There is no lesson plan \"%s\": it is not a file, and the "
                                     "course's plans are %s.",
                                     nameOrFile.c_str(), names.c_str())
                               : trf("There is no lesson plan \"%s\": no such file, and the "
                                     "course's plans are %s.",
                                     nameOrFile.c_str(), names.c_str()));
    return out;
  }
  std::ifstream in(nameOrFile);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  if (in.bad()) {
    PlanRead out;
    out.problems.push_back(trf("Could not read %s.", nameOrFile.c_str()));
    return out;
  }
  return readPlan(text, nameOrFile, presets, find);
}

}  // namespace cudalab
