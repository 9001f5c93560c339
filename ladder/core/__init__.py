"""The shared base of the services and selectors: what every domain uses."""
