// The handler API lives in the core; this name stays so handlers here import it from next door.
export * from '../core/events/define-event';
