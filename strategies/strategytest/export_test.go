package strategytest

// CancelLimit is the cancellation limit of this build, for the tests.
const CancelLimit = cancelLimit
