// Presets: reading, writing, applying; see preset.hpp.
#include "plans/preset.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/embedded.hpp"
#include "plans/json_file.hpp"
#include "core/i18n.hpp"

namespace cudalab::embedded {
extern const EmbeddedFile kPresetFiles[];
extern const int kPresetFiles_count;
}  // namespace cudalab::embedded

namespace cudalab {

namespace fs = std::filesystem;

// [SECTION] Parameters

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? tr(" or ") : ", ") + names[i];
  return out;
}

bool isOnOff(const ParamBinding& b) {
  return b.choices.size() == 2 && b.choices[0] == "off" && b.choices[1] == "on";
}

// A choice's name as JSON: a number where the name is one ("256"), a bool for on/off.
nlohmann::json choiceJson(const ParamBinding& b, size_t index) {
  const std::string& name = b.choices[index];
  if (isOnOff(b)) return index == 1;
  char* end = nullptr;
  const long long v = std::strtoll(name.c_str(), &end, 10);
  if (!name.empty() && end && *end == '\0' && std::to_string(v) == name) return v;
  return name;
}

std::string shown(const nlohmann::json& v) {
  return v.is_string() ? "\"" + v.get<std::string>() + "\"" : v.dump();
}

// The index of `v` among the choice's names, or a sentence.
Result<double> choiceIndex(const ParamBinding& b, const nlohmann::json& v) {
  std::string name;
  if (v.is_string()) {
    name = v.get<std::string>();
  } else if (v.is_boolean() && isOnOff(b)) {
    name = v.get<bool>() ? "on" : "off";
  } else if (v.is_number_integer()) {
    name = std::to_string(v.get<long long>());
  } else if (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>() &&
             std::fabs(v.get<double>()) < 1e15) {
    name = std::to_string(static_cast<long long>(v.get<double>()));
  }
  for (size_t i = 0; i < b.choices.size(); ++i)
    if (b.choices[i] == name) return static_cast<double>(i);
  return Status::error(trf("%s must be %s; %s is not one of them.", tr(b.spec->label),
                           joined(b.choices).c_str(), shown(v).c_str()));
}

}  // namespace

ParamRead readParameters(const nlohmann::json& params, Lesson& lesson, const std::string& where) {
  ParamRead out;
  if (!params.is_object()) {
    out.problems.push_back(trf("%s must be an object of parameter names and values; it is %s.",
                               where.c_str(), params.type_name()));
    return out;
  }
  const std::vector<ParamBinding> bindings = lesson.bindings();
  std::vector<std::string> ids;
  for (const ParamBinding& b : bindings)
    ids.push_back(b.spec->id);
  for (const auto& [id, v] : params.items()) {
    const auto it = std::find_if(bindings.begin(), bindings.end(),
                                 [&](const ParamBinding& b) { return id == b.spec->id; });
    if (it == bindings.end()) {
      out.warnings.push_back(
          trf("%s: the lesson %s has no parameter \"%s\", so it is ignored (its "
              "parameters: %s).",
              where.c_str(), lesson.info().id, id.c_str(), joined(ids).c_str()));
      continue;
    }
    const ParamBinding& b = *it;
    const std::string field = where + " \"" + id + "\": ";
    if (!b.choices.empty()) {
      Result<double> index = choiceIndex(b, v);
      if (index)
        out.values.push_back({id, *index});
      else
        out.problems.push_back(field + index.status().message());
      continue;
    }
    if (!v.is_number()) {
      out.problems.push_back(
          field + trf("%s must be a number; it is %s.", tr(b.spec->label), shown(v).c_str()));
      continue;
    }
    const double x = v.get<double>();
    if (Status s = checkRange(*b.spec, x); !s) {
      out.problems.push_back(field + trStatus(s));
      continue;
    }
    out.values.push_back({id, x});
  }
  return out;
}

nlohmann::json captureParameters(Lesson& lesson) {
  nlohmann::json out = nlohmann::json::object();
  for (const ParamBinding& b : lesson.bindings()) {
    const double v = b.get();
    if (!b.choices.empty())
      out[b.spec->id] =
          choiceJson(b, std::clamp<size_t>(size_t(std::lround(v)), 0, b.choices.size() - 1));
    else if (b.spec->integer)
      out[b.spec->id] = std::llround(v);
    else
      out[b.spec->id] = v;
  }
  return out;
}

std::vector<ParamValue> currentValues(Lesson& lesson) {
  std::vector<ParamValue> out;
  for (const ParamBinding& b : lesson.bindings())
    out.push_back({b.spec->id, b.get()});
  return out;
}

namespace {

// What the preset wants of binding `b`: its value, else the default.
double wanted(const ParamBinding& b, const std::vector<ParamValue>& values) {
  for (const ParamValue& v : values)
    if (v.id == b.spec->id) return v.value;
  return b.defaultNow ? b.defaultNow() : b.spec->defaultValue;
}

}  // namespace

void applyParameters(Lesson& lesson, const std::vector<ParamValue>& values, bool react) {
  // One binding at a time, as a learner would move the controls: a choice that brings its own
  // values (the playground's exercise) comes first in the list and is set first.
  for (const ParamBinding& b : lesson.bindings()) {
    const double target = wanted(b, values);
    if (b.get() != target) (react ? b.set : b.assign)(target);
  }
}

bool parametersAre(Lesson& lesson, const std::vector<ParamValue>& values) {
  for (const ParamBinding& b : lesson.bindings())
    if (b.get() != wanted(b, values)) return false;
  return true;
}

// [SECTION] Preset files

PresetRead readPreset(const std::string& text, const std::string& file, const LessonLookup& find) {
  PresetRead out;
  auto refuse = [&](const std::string& why) {
    out.problems.push_back(
        trf("%s is not a preset cudalab can read: %s", file.c_str(), why.c_str()));
    return out;
  };
  Result<nlohmann::json> parsed = readVersionedJson(text, kPresetFormat, kPresetVersion);
  if (!parsed) return refuse(parsed.status().message());
  const nlohmann::json& j = *parsed;
  if (!j.contains("lesson") || !j["lesson"].is_string())
    return refuse(tr("it names no lesson (\"lesson\": \"reduction\", say)."));
  Preset p;
  p.lesson = j["lesson"].get<std::string>();
  Lesson* lesson = find(p.lesson);
  if (!lesson)
    return refuse(trf("there is no lesson \"%s\" (see `cudalab list`).", p.lesson.c_str()));
  p.name = j.value("name", std::string());
  if (!j.contains("name") || !j["name"].is_string() || p.name.empty())
    return refuse(tr("it has no name."));
  if (j.contains("description")) {
    if (j["description"].is_string())
      p.description = j["description"].get<std::string>();
    else
      out.problems.push_back(
          trf("%s: its description is not text, so it is left out.", file.c_str()));
  }
  const std::string where = trf("preset \"%s\"", p.name.c_str());
  if (j.contains("parameters")) {
    ParamRead r = readParameters(j["parameters"], *lesson, where);
    p.values = std::move(r.values);
    for (std::string& s : r.problems)
      out.problems.push_back(std::move(s));
    for (std::string& s : r.warnings)
      out.warnings.push_back(std::move(s));
  }
  warnUnknownFields(j, {"format", "version", "lesson", "name", "description", "parameters"}, where,
                    trf("cudalab's presets %d", kPresetVersion), out.warnings);
  p.file = file;
  out.preset = std::move(p);
  return out;
}

Preset capturePreset(Lesson& lesson, const std::string& name, const std::string& description) {
  Preset p;
  p.lesson = lesson.info().id;
  p.name = name;
  p.description = description;
  p.values = currentValues(lesson);
  return p;
}

std::string presetText(const Preset& p, Lesson& lesson) {
  // The values as the lesson would write them: set on a copy of the bindings' view.
  nlohmann::ordered_json params = nlohmann::ordered_json::object();  // in the panel's order
  for (const ParamBinding& b : lesson.bindings()) {
    const auto it = std::find_if(p.values.begin(), p.values.end(),
                                 [&](const ParamValue& v) { return v.id == b.spec->id; });
    if (it == p.values.end()) continue;
    if (!b.choices.empty())
      params[b.spec->id] = choiceJson(
          b, std::clamp<size_t>(size_t(std::lround(it->value)), 0, b.choices.size() - 1));
    else if (b.spec->integer)
      params[b.spec->id] = std::llround(it->value);
    else
      params[b.spec->id] = it->value;
  }
  nlohmann::ordered_json j;
  j["format"] = kPresetFormat;
  j["version"] = kPresetVersion;
  j["lesson"] = p.lesson;
  j["name"] = p.name;
  if (!p.description.empty()) j["description"] = p.description;
  j["parameters"] = params;
  return j.dump(2) + "\n";
}

std::string presetFileStem(const std::string& name) {
  std::string out;
  for (unsigned char c : name) {
    if (std::isalnum(c))
      out += static_cast<char>(std::tolower(c));
    else if (c >= 0x80)
      out += static_cast<char>(c);  // letters of other scripts stay (UTF-8 bytes)
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  // At most 80 bytes, cut between two characters (never inside a UTF-8 sequence).
  if (out.size() > 80) {
    size_t cut = 80;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80)
      --cut;
    out.resize(cut);
  }
  while (!out.empty() && out.back() == '-')
    out.pop_back();
  return out.empty() ? "preset" : out;
}

// [SECTION] The store

std::vector<ShippedFile> shippedPresetFiles() {
  std::vector<ShippedFile> out;
  for (int i = 0; i < embedded::kPresetFiles_count; ++i)
    out.push_back({embedded::kPresetFiles[i].name, embedded::kPresetFiles[i].text});
  return out;
}

PresetStore::PresetStore(LessonLookup find, std::string userDir)
    : find_(std::move(find)), userDir_(std::move(userDir)) {}

void PresetStore::load() {
  loaded_ = true;
  shipped_.clear();
  user_.clear();
  problems_.clear();
  auto take = [&](PresetRead r, bool shipped, std::vector<Preset>& into) {
    for (std::string& s : r.problems)
      problems_.push_back(std::move(s));
    for (std::string& s : r.warnings)
      problems_.push_back(std::move(s));
    if (!r.preset) return;
    // A preset of the user's with a course preset's name would be chosen in its place: left out.
    if (!shipped)
      for (const Preset& c : shipped_)
        if (c.lesson == r.preset->lesson && c.name == r.preset->name) {
          problems_.push_back(
              trf("%s is left out: the course's presets of %s already have one "
                  "called \"%s\"; rename it in the file.",
                  r.preset->file.c_str(), c.lesson.c_str(), c.name.c_str()));
          return;
        }
    r.preset->shipped = shipped;
    into.push_back(std::move(*r.preset));
  };
  for (const ShippedFile& f : shippedPresetFiles())
    take(readPreset(f.text, std::string("assets/presets/") + f.name, find_), true, shipped_);
  if (userDir_.empty()) return;
  std::error_code ec;
  std::vector<fs::path> files;
  for (fs::recursive_directory_iterator it(userDir_, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec) && it->path().extension() == ".json") files.push_back(it->path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::ifstream in(f);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    if (!in.good() && !in.eof()) {
      problems_.push_back(trf("Could not read the preset %s.", f.string().c_str()));
      continue;
    }
    take(readPreset(text, f.string(), find_), false, user_);
  }
  std::stable_sort(user_.begin(), user_.end(),
                   [](const Preset& a, const Preset& b) { return a.name < b.name; });
}

std::vector<const Preset*> PresetStore::of(const std::string& lesson) {
  if (!loaded_) load();
  std::vector<const Preset*> out;
  for (const std::vector<Preset>* list : {&shipped_, &user_})
    for (const Preset& p : *list)
      if (p.lesson == lesson) out.push_back(&p);
  return out;
}

Result<Preset> PresetStore::find(const std::string& lesson, const std::string& nameOrFile,
                                 std::vector<std::string>* problems) {
  for (const Preset* p : of(lesson))
    if (p->name == nameOrFile || fs::path(p->file).stem() == nameOrFile) return *p;
  std::error_code ec;
  if (fs::is_regular_file(nameOrFile, ec)) {
    std::ifstream in(nameOrFile);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    PresetRead r = readPreset(text, nameOrFile, find_);
    if (!r.preset) return Status::error(r.problems.empty() ? "?" : r.problems.front());
    if (problems) {
      problems->insert(problems->end(), r.problems.begin(), r.problems.end());
      problems->insert(problems->end(), r.warnings.begin(), r.warnings.end());
    }
    if (r.preset->lesson != lesson)
      return Status::error(trf("The preset %s is for the lesson %s, not %s.", nameOrFile.c_str(),
                               r.preset->lesson.c_str(), lesson.c_str()));
    return *r.preset;
  }
  std::vector<std::string> names;
  for (const Preset* p : of(lesson))
    names.push_back("\"" + p->name + "\"");
  return Status::error(
      trf("The lesson %s has no preset \"%s\" and there is no such file; its "
          "presets are: %s.",
          lesson.c_str(), nameOrFile.c_str(), names.empty() ? tr("none") : joined(names).c_str()));
}

Status PresetStore::save(const Preset& p, Lesson& lesson) {
  if (userDir_.empty())
    return Status::error(tr("This run keeps nothing on disk, so presets cannot be saved."));
  if (p.name.empty()) return Status::error(tr("A preset needs a name."));
  for (const Preset* q : of(p.lesson))
    if (q->shipped && q->name == p.name)
      return Status::error(
          trf("The course's presets already have one called \"%s\"; choose "
              "another name.",
              p.name.c_str()));
  const fs::path dir = fs::path(userDir_) / p.lesson;
  std::error_code ec;
  fs::create_directories(dir, ec);
  // A preset of the same name keeps its file; a new one gets a file named after it, numbered when
  // that name's file holds another preset ("demo a" and "Demo A").
  const std::string stem = presetFileStem(p.name);
  fs::path path = dir / (stem + ".json");
  bool replacing = false;
  for (const Preset& q : user_)
    if (q.lesson == p.lesson && q.name == p.name) {
      path = q.file;
      replacing = true;
    }
  for (int n = 2; !replacing && fs::exists(path, ec); ++n)
    path = dir / (stem + "-" + std::to_string(n) + ".json");
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp);
    out << presetText(p, lesson);
    if (!out) return Status::error(trf("Could not save the preset to %s.", path.string().c_str()));
  }
  fs::rename(tmp, path, ec);
  if (ec)
    return Status::error(
        trf("Could not save the preset to %s: %s.", path.string().c_str(), ec.message().c_str()));
  loaded_ = false;
  return {};
}

Status PresetStore::remove(const Preset& p) {
  if (p.shipped) return Status::error(tr("The course's presets cannot be deleted."));
  std::error_code ec;
  if (!fs::remove(p.file, ec) || ec)
    return ec ? Status::error(trf("Could not delete %s: %s.", p.file.c_str(), ec.message().c_str()))
              : Status::error(trf("Could not delete %s.", p.file.c_str()));
  loaded_ = false;
  return {};
}

const std::vector<std::string>& PresetStore::problems() {
  if (!loaded_) load();
  return problems_;
}

}  // namespace cudalab
