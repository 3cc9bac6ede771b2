-- Attempt detail and resends. Each attempt keeps the `t` of the signature it was sent with (null when none could
-- be made), and each delivery counts the attempts made by hand: `attempts` counts every attempt made, and the
-- retry schedule follows the scheduled ones only (attempts - manual_attempts), so a resend never moves it.

ALTER TABLE delivery_attempts ADD COLUMN signature_t bigint;
ALTER TABLE deliveries ADD COLUMN manual_attempts integer NOT NULL DEFAULT 0;
