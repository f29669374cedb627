// GATT characteristic decoders (issue 2).
