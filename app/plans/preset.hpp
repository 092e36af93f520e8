// Presets: a lesson's parameters saved under a name, as a small JSON file a teacher can read,
// write by hand, mail to a colleague or put in a lesson plan.
//
//   {"format": "cudalab-preset", "version": 1, "lesson": "reduction",
//    "name": "The course's sum", "description": "2^27 - 157 float32 numbers, 128 threads",
//    "parameters": {"type": "float32", "n": 134217571, "block": 128}}
//
// A parameter is one of the lesson's bindings (core/binding.hpp) by its id: a number, or for a
// choice the option's name ("float64"; numbers where the names are numbers, true and false for
// on/off). Applying a preset sets every parameter it names and puts the others back to their
// defaults, so a preset gives the same lesson state whatever came before. Reading is forgiving
// and says what it did: a bad value costs only its own field (one sentence each), an unknown field
// is ignored with a warning, and only a file that is not a preset at all (not JSON, another
// format, a newer version, no such lesson) is refused as a whole.
//
// The course's presets ship in assets/presets/ (embedded at build time); the user's own are
// files in <config>/cudalab/presets/<lesson>/.
//
// [SECTION] Parameters: reading them against a lesson, capturing, applying
// [SECTION] Preset files
// [SECTION] The store: shipped presets and the user's
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "core/lesson.hpp"

namespace cudalab {

// ---------------------------------------------------------------------------------------------
// [SECTION] Parameters
// ---------------------------------------------------------------------------------------------

// One parameter as the binding takes it: a number, or a choice's index.
struct ParamValue {
  std::string id;
  double value = 0;
};

// What reading a "parameters" object found: the values that can be set, a sentence for each bad
// field (left out), a sentence for each unknown one (ignored).
struct ParamRead {
  std::vector<ParamValue> values;
  std::vector<std::string> problems;
  std::vector<std::string> warnings;
};

// Reads `params` (an object: id -> value) against `lesson`'s bindings. `where` begins each
// sentence ("parameters", "step 3's parameters").
ParamRead readParameters(const nlohmann::json& params, Lesson& lesson, const std::string& where);

// The lesson's parameters as they are now, by id, as a preset writes them.
nlohmann::json captureParameters(Lesson& lesson);
// The same as values.
std::vector<ParamValue> currentValues(Lesson& lesson);

// Sets `values` as the panel's controls would (each lesson reacts as to its sliders); every
// parameter not among them goes back to its default. Values were checked by readParameters. A
// lesson not yet shown only takes the values (`react` false): it starts its first work with them
// when it is shown, and starts nothing before.
void applyParameters(Lesson& lesson, const std::vector<ParamValue>& values, bool react = true);

// Whether the lesson's parameters are `values` (the rest at their defaults): the preset chooser
// marks a preset as changed once a control moves.
bool parametersAre(Lesson& lesson, const std::vector<ParamValue>& values);

// ---------------------------------------------------------------------------------------------
// [SECTION] Preset files
// ---------------------------------------------------------------------------------------------

inline constexpr const char* kPresetFormat = "cudalab-preset";
inline constexpr int kPresetVersion = 1;

struct Preset {
  std::string lesson;  // the lesson's id
  std::string name;
  std::string description;
  std::vector<ParamValue> values;
  bool shipped = false;  // one of the course's (assets/presets), not the user's
  std::string file;      // where it was read from or saved to ("assets/presets/x.json" if shipped)
};

// What reading one preset file found.
struct PresetRead {
  std::optional<Preset> preset;       // empty when the file is not a preset at all
  std::vector<std::string> problems;  // sentences: why not, or each field that was left out
  std::vector<std::string> warnings;  // unknown fields, ignored
};

// Finds a lesson by id (the shell's own lesson objects, or fresh ones): nullptr when unknown.
using LessonLookup = std::function<Lesson*(const std::string& id)>;

// Reads `text` (the contents of `file`) as a preset.
PresetRead readPreset(const std::string& text, const std::string& file, const LessonLookup& find);
// The lesson's parameters as they are now, as a preset called `name`.
Preset capturePreset(Lesson& lesson, const std::string& name, const std::string& description);
// The file's text (the values written as captureParameters writes them).
std::string presetText(const Preset& p, Lesson& lesson);
// A file name made of the name's letters and digits: "The course's sum" -> "the-course-s-sum".
std::string presetFileStem(const std::string& name);

// ---------------------------------------------------------------------------------------------
// [SECTION] The store
// ---------------------------------------------------------------------------------------------

class PresetStore {
 public:
  // `userDir`: where the user's presets live (<config>/cudalab/presets), or "" for none (headless
  // runs, tests): then nothing is read from or written to the disk.
  PresetStore(LessonLookup find, std::string userDir);

  // The lesson's presets: the course's first, in file order, then the user's by name.
  std::vector<const Preset*> of(const std::string& lesson);
  // By name among the lesson's presets, or by the path of a preset file; a sentence when neither.
  // A file's fields left out and warnings go to `problems` when given.
  Result<Preset> find(const std::string& lesson, const std::string& nameOrFile,
                      std::vector<std::string>* problems = nullptr);
  // Saves the user's preset (replacing one of the same name); refuses a course preset's name.
  Status save(const Preset& p, Lesson& lesson);
  Status remove(const Preset& p);
  // Sentences about files that could not be read (and the fields left out of those that could).
  const std::vector<std::string>& problems();
  const std::string& userDir() const { return userDir_; }

 private:
  void load();

  LessonLookup find_;
  std::string userDir_;
  bool loaded_ = false;
  std::vector<Preset> shipped_, user_;
  std::vector<std::string> problems_;
};

// The course's presets as shipped (assets/presets), for tests and `cudalab list --presets`.
struct ShippedFile {
  const char* name;
  const char* text;
};
std::vector<ShippedFile> shippedPresetFiles();

}  // namespace cudalab
