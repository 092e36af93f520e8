// The catalogue: what the lesson registry (lessons/registry.cpp) lists for each lesson, and what a
// benchmark is. The registry sits above every lesson, so the shell, the soak and the benchmark
// runner never include it: main() hands them the list (Shell's constructor, BenchOptions::lessons).
//
//   // at the end of lessons/my/my_lesson.cpp, where class MyLesson is:
//   const LessonEntry kMyLesson{&kMyLessonInfo, &makeLesson<MyLesson>, kMyBenches};
//   // lessons/registry.cpp lists kMyLesson; the shell makes each lesson it shows:
//   for (const LessonEntry& e : lessons) lessonsShown.push_back(e.make());
#pragma once

#include <memory>
#include <span>
#include <string>

#include "common/runtime_info.hpp"
#include "core/lesson.hpp"

namespace cudalab {

struct BenchOptions;

// One `cudalab bench ID`: its id and the function that runs it and returns the exit code (what it
// measures is said over the function). A lesson's benchmarks live beside its panels
// (app/lessons/<lesson>/<lesson>_bench.cpp).
struct BenchEntry {
  const char* id;
  int (*run)(const BenchOptions& opt);
};

// One lesson as the registry lists it: its info, its factory and its benchmarks.
struct LessonEntry {
  const LessonInfo* info;
  std::unique_ptr<Lesson> (*make)();
  std::span<const BenchEntry> benches;
};

// The factory of lesson class L, for its entry.
template <class L>
std::unique_ptr<Lesson> makeLesson() {
  return std::make_unique<L>();
}

// How a benchmark is asked to run. `quick` (`cudalab bench ID --quick`) runs the same kernels at
// small sizes and few repetitions, so that tools/sanitize.sh can put every benchmark under
// compute-sanitizer (racecheck slows a kernel a hundredfold and more); its figures are not
// performance figures. `lessons` is the whole registry, for a benchmark that times the app's own
// frames with every lesson in the shell. `rt` is what the runner found: it runs a benchmark only
// where there is a GPU (every benchmark measures one), so a benchmark need not ask again.
struct BenchOptions {
  std::string outDir = ".";
  bool quick = false;
  std::span<const LessonEntry> lessons;
  RuntimeInfo rt = {};
};

// The entry with this id in `lessons`, or nullptr.
const LessonEntry* findLesson(std::span<const LessonEntry> lessons, std::string_view id);

}  // namespace cudalab
