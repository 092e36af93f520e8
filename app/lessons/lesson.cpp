#include "lessons/lesson.hpp"

#include "common/measurement_export.hpp"
#include "ui/i18n.hpp"

namespace cudalab {

namespace {

Status setThrough(Lesson& lesson, const std::string& id, double value, bool react) {
  std::string known;
  for (const ParamBinding& b : lesson.bindings()) {
    if (id == b.spec->id) {
      if (Status s = checkRange(*b.spec, value); !s) return s;
      (react ? b.set : b.assign)(value);
      return {};
    }
    known += (known.empty() ? "" : ", ") + std::string(b.spec->id);
  }
  std::string msg = "The lesson ";
  msg.append(lesson.info().id).append(" has no parameter \"").append(id);
  msg.append("\"; its parameters are: ").append(known.empty() ? "none" : known).append(".");
  return Status::error(msg);
}

}  // namespace

void exportLessonResults(LessonContext& ctx, const LessonResults& r, bool json) {
  if (json ? r.json.is_null() || r.json.empty() : r.csv.empty()) {
    // noCsv: a fixed sentence the lesson marked for the catalogue.
    ctx.error(Status::error(json ? tr("Nothing is measured yet.") : tr(r.noCsv)));
    return;
  }
  const std::string path = ctx.exportPath(json ? "results" : r.csvName, json ? "json" : "csv");
  const Status st = writeText(path, json ? r.json.dump(2) + "\n" : r.csv);
  if (st)
    ctx.info(trf("Saved %s", path.c_str()));
  else
    ctx.error(st);
}

Status setParameter(Lesson& lesson, const std::string& id, double value) {
  return setThrough(lesson, id, value, /*react=*/true);
}

Status restoreParameter(Lesson& lesson, const std::string& id, double value) {
  return setThrough(lesson, id, value, /*react=*/false);
}

}  // namespace cudalab
