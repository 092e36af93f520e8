// Reading the GPU's counters in a helper process; see counters_helper.hpp.
#include "core/counters_helper.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "common/phrase_json.hpp"
#include "common/translatable.hpp"
#include "platform/crash_report.hpp"
#include "playground/worker.hpp"

namespace cudalab {
namespace {

// How long the helper may go without a word (starting, or between two progress lines) before the
// app ends it: a reading at the largest sizes replays each kernel once per profiler pass.
constexpr double kQuietSeconds = 300;

struct JobEntry {
  std::size_t bytes;
  CountersJobBytes run;
};

std::map<std::string, JobEntry>& jobs() {
  static std::map<std::string, JobEntry> all;
  return all;
}

using playground::Message;

nlohmann::json number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

double numberFrom(const nlohmann::json& j) {
  return j.is_number() ? j.get<double>() : NAN;
}

}  // namespace

bool registerCountersJobBytes(const char* name, std::size_t paramBytes, CountersJobBytes job) {
  jobs()[name] = {paramBytes, std::move(job)};
  return true;
}

nlohmann::json toJson(const counters::StepReading& r) {
  nlohmann::json values = nlohmann::json::array(), model = nlohmann::json::array();
  for (double v : r.measured.values)
    values.push_back(number(v));
  for (const auto& [k, v] : r.model)
    model.push_back({k, number(v)});
  nlohmann::json mismatches = nlohmann::json::array();
  for (const Phrase& m : r.mismatches)
    mismatches.push_back(toJson(m));
  return {{"key", r.key},
          {"label", r.label},
          {"label_phrase", toJson(r.labelPhrase)},
          {"colour", r.colour},
          {"launches", r.launches},
          {"range", r.measured.range},
          {"keys", r.measured.keys},
          {"values", values},
          {"model", model},
          {"mismatches", mismatches}};
}

Result<counters::StepReading> stepReadingFromJson(const nlohmann::json& j) {
  try {
    counters::StepReading r;
    r.key = j.at("key").get<std::string>();
    r.label = j.at("label").get<std::string>();
    r.labelPhrase = phraseFromJson(j.at("label_phrase"));
    r.colour = j.at("colour").get<int>();
    r.launches = j.at("launches").get<int>();
    r.measured.range = j.at("range").get<std::string>();
    r.measured.keys = j.at("keys").get<std::vector<std::string>>();
    for (const auto& v : j.at("values"))
      r.measured.values.push_back(numberFrom(v));
    if (r.measured.values.size() != r.measured.keys.size())
      return Status::error("a reading has " + std::to_string(r.measured.keys.size()) +
                           " counters but " + std::to_string(r.measured.values.size()) + " values");
    for (const auto& m : j.at("model"))
      r.model.emplace_back(m.at(0).get<std::string>(), numberFrom(m.at(1)));
    for (const auto& m : j.at("mismatches"))
      r.mismatches.push_back(phraseFromJson(m));
    return r;
  } catch (const std::exception& e) {
    return Status::error(std::string("a reading that is not one (") + e.what() + ")");
  }
}

Result<CountersReadings> measureInHelperBytes(const char* name, std::string params,
                                              const std::atomic<bool>* cancel,
                                              const CountersProgress& progress,
                                              const std::string& executable) {
  std::string binary = executable;
  if (binary.empty()) {
    const char* env = std::getenv("CUDALAB_BINARY");
    binary = env && *env ? env : playground::selfExecutable();
  }
  playground::WorkerClient helper({binary, "counters-helper"});
  if (progress)
    helper.onProgress([&progress](const nlohmann::json& j) {
      progress(j.value("fraction", 0.0f), j.value("what", std::string()));
    });
  const Message request{{{"type", "counters"}, {"job", name}}, {std::move(params)}};
  Result<Message> reply = helper.call(request, kQuietSeconds, kQuietSeconds, cancel);
  if (!reply) {
    // A fixed sentence, marked: the panel's errorText shows it translated.
    if (cancel && cancel->load())
      return Status::error(N_("Cancelled: the counters were not read."));
    // What the helper printed tells more: its crash report's sentence (platform/crash_report.hpp:
    // the signal and what it was doing, without the stack), else its last line (CUPTI's own
    // complaint). Only the first 16 KiB of its output are kept: a report after more is not seen.
    std::string said = helper.output();
    if (const size_t at = said.find(kCrashSentenceStart); at != std::string::npos) {
      said = said.substr(at, said.find(kCrashSentenceEnd, at) - at) + ".";
    } else {
      while (!said.empty() && (said.back() == '\n' || said.back() == ' '))
        said.pop_back();
      if (const size_t nl = said.rfind('\n'); nl != std::string::npos) said = said.substr(nl + 1);
    }
    return Status::error("Reading the counters in their own process failed: " +
                         reply.status().message() + (said.empty() ? "" : " It said: " + said));
  }
  const std::string type = reply->head.value("type", "");
  if (type == "error") return Status::error(reply->head.value("message", std::string("?")));
  if (type != "readings" || !reply->head.contains("readings") ||
      !reply->head["readings"].is_array())
    return Status::error("The counters' process answered something else than readings (\"" + type +
                         "\").");
  CountersReadings out;
  for (const auto& j : reply->head["readings"]) {
    Result<counters::StepReading> r = stepReadingFromJson(j);
    if (!r) return Status::error("The counters' process sent " + r.status().message() + ".");
    out.push_back(std::move(*r));
  }
  return out;
}

const CountersJobBytes* findCountersJob(const std::string& name, std::size_t* paramBytes) {
  const auto it = jobs().find(name);
  if (it == jobs().end()) return nullptr;
  if (paramBytes) *paramBytes = it->second.bytes;
  return &it->second.run;
}

}  // namespace cudalab
