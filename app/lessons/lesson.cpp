#include "lessons/lesson.hpp"

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

Status setParameter(Lesson& lesson, const std::string& id, double value) {
  return setThrough(lesson, id, value, /*react=*/true);
}

Status restoreParameter(Lesson& lesson, const std::string& id, double value) {
  return setThrough(lesson, id, value, /*react=*/false);
}

}  // namespace cudalab
