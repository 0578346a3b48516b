export { NEXT, TOKEN, opsApp } from './testing/ops-app';
