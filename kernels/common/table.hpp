// Look-ups in the lessons' tables (a ladder's steps, the variants, the metrics): one helper for
// every "the row whose id is ...", "the id whose key is ...", so no table carries a loop of its
// own. A table is any range of rows (a constexpr array, a span); a column is a pointer to member.
//
//   const StepInfo* s = findRow(kSteps, &StepInfo::key, "tiled16");  // nullptr when none
//   const StepInfo& t = rowOf(kSteps, &StepInfo::id, StepId::Naive);  // the first row when none
//   std::optional<StepId> id = idOf(kSteps, &StepInfo::key, &StepInfo::id, "tiled16");
//   std::vector<StepId> all = column(kSteps, &StepInfo::id);          // in the table's order
//
// A table whose rows have an `id` (an enum) and a `key` (its stable name: command line, presets,
// JSON) is a KeyedTable, the one helper behind every ladder's steps and every variants table. Its
// rows stay in the .cpp; the header declares the table and names its three look-ups in one line:
//   extern const KeyedTable<StepInfo> kStepTable;                            // matmul.hpp
//   CUDALAB_KEYED_LOOKUPS(kStepTable, steps, stepInfo, stepByKey)            // matmul.hpp
//   const KeyedTable<StepInfo> kStepTable{kSteps};                           // matmul_model.cpp
// which gives steps() (every row, a span), stepInfo(StepId) (a row) and stepByKey(key) (an id).
#pragma once

#include <functional>
#include <iterator>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

namespace cudalab {

namespace detail {
// Keys compare as text when both sides are text (a const char* column against a std::string).
template <class A, class B>
bool sameKey(const A& a, const B& b) {
  if constexpr (std::is_convertible_v<const A&, std::string_view> &&
                std::is_convertible_v<const B&, std::string_view>)
    return std::string_view(a) == std::string_view(b);
  else
    return a == b;
}
}  // namespace detail

// The row whose `member` equals `value`, or nullptr.
template <class Rows, class Row, class Field, class Value>
const Row* findRow(const Rows& rows, Field Row::*member, const Value& value) {
  for (const Row& r : rows)
    if (detail::sameKey(r.*member, value)) return &r;
  return nullptr;
}

// The row whose `member` equals `value`; the table's first row when there is none (for tables
// that hold every value of their enum, where none is a programming error the tests catch).
template <class Rows, class Row, class Field, class Value>
const Row& rowOf(const Rows& rows, Field Row::*member, const Value& value) {
  const Row* r = findRow(rows, member, value);
  return r ? *r : *std::begin(rows);
}

// The `out` column of the row whose `member` equals `value`, or nullopt.
template <class Rows, class Row, class Field, class Value, class Out>
std::optional<Out> idOf(const Rows& rows, Field Row::*member, Out Row::*out, const Value& value) {
  if (const Row* r = findRow(rows, member, value)) return r->*out;
  return std::nullopt;
}

// One column of the table, in its order.
template <class Rows, class Row, class Field>
std::vector<Field> column(const Rows& rows, Field Row::*member) {
  std::vector<Field> out;
  for (const Row& r : rows)
    out.push_back(r.*member);
  return out;
}

// A measured ladder's fastest hand-written step (not a library call) by `rate` (a pointer to
// member or a function of the result), among the results `keep` accepts; nullptr when none. The
// ladder's namespace gives stepInfo(StepId) and handWritten(const StepInfo&), found by argument.
//   const StepResult* best = fastestHandWritten(report.steps, &StepResult::gbps);
struct KeepEvery {
  template <class T>
  constexpr bool operator()(const T&) const {
    return true;
  }
};
template <class Results, class Rate, class Keep = KeepEvery>
auto fastestHandWritten(const Results& results, Rate rate, Keep keep = {}) {
  const auto* best = static_cast<const typename Results::value_type*>(nullptr);
  for (const auto& s : results)
    if (handWritten(stepInfo(s.step)) && keep(s) &&
        (!best || std::invoke(rate, s) > std::invoke(rate, *best)))
      best = &s;
  return best;
}

// An enum's stable names (command line, JSON, presets) in one table for both directions, where a
// switch per direction would repeat them:
//   constexpr EnumName<DataType> kTypeNames[] = {{DataType::Int32, "int32"}, ...};
//   nameOf(kTypeNames, DataType::Int32)         // "int32"; "?" for a value the table lacks
//   valueOf(kTypeNames, "int32")                // DataType::Int32; nullopt for an unknown name
template <class E>
struct EnumName {
  E id;
  const char* key;
};
template <class Names, class E>
const char* nameOf(const Names& names, E id, const char* missing = "?") {
  const EnumName<E>* row = findRow(names, &EnumName<E>::id, id);
  return row ? row->key : missing;
}
template <class E, std::size_t N>
std::optional<E> valueOf(const EnumName<E> (&names)[N], std::string_view key) {
  return idOf(names, &EnumName<E>::key, &EnumName<E>::id, key);
}

// The best hand-written step's share of the library's rate in a measured ladder (its results'
// `ofLibrary`), 0 when no hand-written step ran: what the benchmarks' targets compare.
template <class Results>
double bestShareOfLibrary(const Results& results) {
  const auto* top = fastestHandWritten(results, &Results::value_type::ofLibrary);
  return top ? top->ofLibrary : 0;
}

template <class Row>
class KeyedTable {
 public:
  using Id = std::remove_cvref_t<decltype(std::declval<const Row&>().id)>;
  constexpr explicit KeyedTable(std::span<const Row> rows) : rows_(rows) {}
  // Every row, in the table's (teaching) order.
  std::span<const Row> rows() const { return rows_; }
  // The row of `id`; the first row for an id the table lacks (a programming error the tests
  // catch: every table holds every value of its enum).
  const Row& row(Id id) const { return rowOf(rows_, &Row::id, id); }
  // The id whose key is `key`, or nullopt.
  std::optional<Id> byKey(std::string_view key) const {
    return idOf(rows_, &Row::key, &Row::id, key);
  }
  // Every id, in the table's order.
  std::vector<Id> ids() const { return column(rows_, &Row::id); }

 private:
  std::span<const Row> rows_;
};

}  // namespace cudalab

// The three look-ups of a KeyedTable under the lesson's names (see the top of this file): a macro
// because only the names differ, and every lesson's header would otherwise spell the same three
// functions out again.
#define CUDALAB_KEYED_LOOKUPS(table, allName, infoName, byKeyName)           \
  inline auto allName() {                                                    \
    return (table).rows();                                                   \
  }                                                                          \
  inline const auto& infoName(std::remove_cvref_t<decltype(table)>::Id id) { \
    return (table).row(id);                                                  \
  }                                                                          \
  inline auto byKeyName(std::string_view key) {                              \
    return (table).byKey(key);                                               \
  }
