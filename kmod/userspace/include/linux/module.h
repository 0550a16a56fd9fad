/* SPDX-License-Identifier: GPL-2.0-only */
/* Userspace build: every kernel header is the one shim (lmpath-shim.h). */
#include <lmpath-shim.h>
