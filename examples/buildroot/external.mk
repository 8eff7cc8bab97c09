# SPDX-License-Identifier: MIT
include $(sort $(wildcard $(BR2_EXTERNAL_SDIMG_PATH)/package/*/*.mk))
