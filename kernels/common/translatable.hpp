// N_("text") marks a string for the translation catalogue without translating it: tables of the
// kernels (which never depend on the UI) and of the lessons. Where a marked string is shown, the
// app translates it with tr() (app/core/i18n.hpp); xgettext finds both marks when it builds the
// catalogue's template.
#pragma once

#ifndef N_
#define N_(s) s
#endif
