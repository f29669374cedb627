// libmosquitto for Swift (Debian libmosquitto-dev): the MQTT client library. The MQTT module is
// its only user; nothing here needs a wrapper (no macros or variadics are called).
#ifndef CMOSQUITTO_SHIM_H
#define CMOSQUITTO_SHIM_H

#include <mosquitto.h>

#endif
