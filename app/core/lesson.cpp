#include "core/lesson.hpp"

#include <algorithm>

#include "common/measurement_export.hpp"
#include "common/table.hpp"
#include "core/i18n.hpp"

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

LessonResults ladderResults(nlohmann::json json, const std::vector<MeasuredRow>& rows,
                            const char* noCsv) {
  LessonResults out;
  out.json = std::move(json);
  if (!rows.empty()) out.csv = toCsv(rows);
  out.csvName = "ladder";
  out.noCsv = noCsv;
  return out;
}

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

std::vector<std::string> Lesson::actionIds() const {
  std::vector<std::string> ids;
  for (const LessonAction& a : actions_)
    ids.push_back(a.id);
  return ids;
}

const char* Lesson::actionLabel(const std::string& id) const {
  const LessonAction* a = findRow(actions_, &LessonAction::id, id);
  return a ? a->currentLabel() : nullptr;
}

bool Lesson::startAction(const std::string& id) {
  const LessonAction* a = findRow(actions_, &LessonAction::id, id);
  return a && a->start();
}

bool Lesson::busy() const {
  if (!queue_.empty() || otherWorkPending()) return true;
  for (const LessonAction& a : actions_)
    if (a.pending()) return true;
  return false;
}

void Lesson::cancelAll() {
  for (const LessonAction& a : actions_)
    a.cancel();
  queue_.clear();  // or the next queued action would start
  cancelOtherWork();
}

std::optional<JobProgress> Lesson::runningProgress() const {
  for (const LessonAction& a : actions_)
    if (a.progress)
      if (std::optional<JobProgress> p = a.progress()) return p;
  return std::nullopt;
}

const LessonAction& Lesson::action(const char* id) const {
  if (const LessonAction* a = findRow(actions_, &LessonAction::id, id)) return *a;
  // Every id a lesson names is in its table (the registry test draws every lesson); a missing one
  // is a programming error, shown as a button that does nothing rather than a crash.
  static const LessonAction kMissing{"",   "?", nullptr, [] { return false; }, [] { return false; },
                                     [] {}};
  return kMissing;
}

void Lesson::queueActions(const std::vector<std::string>& ids) {
  for (const std::string& id : ids)
    if (std::find(queue_.begin(), queue_.end(), id) == queue_.end()) queue_.push_back(id);
}

void Lesson::startNextQueued() {
  if (queue_.empty() || working()) return;
  const std::string next = queue_.front();
  queue_.erase(queue_.begin());
  startAction(next);
}

Status setParameter(Lesson& lesson, const std::string& id, double value) {
  return setThrough(lesson, id, value, /*react=*/true);
}

Status restoreParameter(Lesson& lesson, const std::string& id, double value) {
  return setThrough(lesson, id, value, /*react=*/false);
}

}  // namespace cudalab
