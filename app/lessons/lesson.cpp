#include "lessons/lesson.hpp"

namespace cudalab {

Status setParameter(Lesson& lesson, const std::string& id, double value) {
  std::string known;
  for (const ParamBinding& b : lesson.bindings()) {
    if (id == b.spec->id) {
      if (Status s = checkRange(*b.spec, value); !s) return s;
      b.set(value);
      return {};
    }
    known += (known.empty() ? "" : ", ") + std::string(b.spec->id);
  }
  std::string msg = "The lesson ";
  msg.append(lesson.info().id).append(" has no parameter \"").append(id);
  msg.append("\"; its parameters are: ").append(known.empty() ? "none" : known).append(".");
  return Status::error(msg);
}

}  // namespace cudalab
