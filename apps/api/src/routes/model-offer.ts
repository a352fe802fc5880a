/** Whether svc offers a model here: judged in `slots/runnable.ts`, the one place slots are judged too. */
export { type Offer, type OfferContext, offer, offerContext } from '../slots/runnable'
