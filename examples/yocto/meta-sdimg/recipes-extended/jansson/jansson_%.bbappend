# SPDX-License-Identifier: MIT
# meta-oe builds jansson for the target and natively; nativesdk-sdimg needs it in the SDK too.
BBCLASSEXTEND = "native nativesdk"
