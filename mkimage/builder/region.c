/* SPDX-License-Identifier: MIT */
/* region: where the plan puts each layout partition (builder_priv.h). Every step that writes
 * a partition asks here, apart from the step that makes the plan. */
#include "mkimage/builder/builder_priv.h"

const struct plan_region *build_region_of(const struct build *b, size_t i)
{
	for (size_t k = 0; b->plan && k < b->plan->n_regions; k++)
		if (b->plan->regions[k].kind == PLAN_PARTITION &&
		    b->plan->regions[k].part == &b->l->parts[i])
			return &b->plan->regions[k];
	return NULL;
}
